@testable import AsyncNetworkingTestSupport

/// A WebSocket goes through the manager's proxy like an HTTP request: a `CONNECT` tunnel carrying
/// the proxy credential, which never reaches the origin.
@Suite("WebSocket through a proxy", .enabled(if: defaultTransportIsCurl, "WebSockets need the curl transport"))
struct WebSocketProxyTests {
    @Test func aWebSocketTunnelsThroughTheManagersProxyWithItsCredential() async throws {
        let proxy = try await ProxyTestServer.started(requiring: ProxyTests.credential)
        defer { proxy.stop() }
        try await withWebSocketServer { server, manager in
            try await manager.setProxy(.through(ProxyTests.http(proxy.port)))
            let socket = try await manager.webSocket(to: server.url("/echo"))
            try await socket.send(.text("through the tunnel"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("through the tunnel"))
            try await socket.close(code: .normalClosure, reason: "done")
            let connect = try #require(proxy.log.first { $0.hasPrefix("CONNECT 127.0.0.1:\(server.port) ") })
            #expect(connect.contains(ProxyTests.expectedAuth), "the proxy got the credential: \(connect)")
        }
    }

    @Test func aProxyThatRefusesTheTunnelIsAProxyFailure() async throws {
        let proxy = try await ProxyTestServer.started(requiring: ProxyTests.credential)
        defer { proxy.stop() }
        try await withWebSocketServer { server, manager in
            try await manager.setProxy(.through(ProxyTests.http(proxy.port, credential: nil)))
            let error = await expectNetworkingError { _ = try await manager.webSocket(to: server.url("/echo")) }
            #expect(error != nil)
            #expect(proxy.log.contains { $0.hasPrefix("CONNECT") }, "the attempt went to the proxy, not around it")
        }
    }
}

/// The manager's cookie jar applies to the opening handshake as to an HTTP request.
@Suite("WebSocket and the cookie jar", .enabled(if: defaultTransportIsCurl, "WebSockets need the curl transport"))
struct WebSocketCookieTests {
    @Test func theHandshakeSendsTheJarsCookiesAndStoresTheOnesItGets() async throws {
        let server = try await startWebSocketServer { try WebSocketTestServer() }
        defer { server.stop() }
        let jar = CookieJar()
        let manager = SessionManager(transport: .curl, cookieJar: jar)
        let url = server.url("/cookies")
        let http = URL(string: "http://127.0.0.1:\(server.port)/cookies")!
        jar.setCookies(fromSetCookieValues: ["pre=1; Path=/"], for: http)
        try await withDeadline {
            let first = try await manager.webSocket(to: url)
            var iterator = first.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("pre=1"))
            try await first.close()
            #expect(jar.cookieHeader(for: http)?.contains("ws-session=s1") == true, "the 101's Set-Cookie was stored")

            let second = try await manager.webSocket(to: url)
            var again = second.messages.makeAsyncIterator()
            guard case .text(let sent)? = try await again.next() else { Issue.record("no message"); return }
            #expect(sent.contains("ws-session=s1") && sent.contains("pre=1"), "\(sent)")
            try await second.close()

            let own = try await manager.webSocket(to: url, headers: ["Cookie": "mine=2"])
            var third = own.messages.makeAsyncIterator()
            #expect(try await third.next() == .text("mine=2"), "a Cookie field of the caller's own is left alone")
            try await own.close()
        }
        await manager.invalidateAndCancel()
    }
}

/// A handshake answered `401` with a Basic challenge is retried once with the host's credential, as
/// an HTTP request is; without one, or with the caller's own `Authorization`, the 401 is the error.
@Suite("WebSocket and credentials", .enabled(if: defaultTransportIsCurl, "WebSockets need the curl transport"))
struct WebSocketCredentialTests {
    @Test func aBasicChallengeIsAnsweredWithTheHostsCredential() async throws {
        try await withWebSocketServer { server, manager in
            let refused = await expectNetworkingError { _ = try await manager.webSocket(to: server.url("/auth")) }
            #expect(refused?.kind == .webSocketHandshakeFailed)
            #expect(refused?.response?.statusCode == 401)

            await manager.setCredential(URLCredential(user: "user", password: "pass", persistence: .none), forHost: "127.0.0.1")
            let socket = try await manager.webSocket(to: server.url("/auth"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("Basic dXNlcjpwYXNz"))
            try await socket.close()

            let own = await expectNetworkingError {
                _ = try await manager.webSocket(to: server.url("/auth"), headers: ["Authorization": "Basic bm9ib2R5Ong="])
            }
            #expect(own?.response?.statusCode == 401, "the caller's own Authorization is not replaced")
        }
    }
}

/// The challenge hook answers a handshake's Basic 401 as it answers an HTTP one.
@Suite("WebSocket and the challenge hook", .enabled(if: defaultTransportIsCurl, "WebSockets need the curl transport"))
struct WebSocketChallengeHookTests {
    final class Asked: Sendable {
        let contexts = SanitizedMutex<[(method: String, realm: String?, failures: Int, status: Int?, host: String)]>([])
    }

    @Test func theHookIsAskedAgainWhileTheServerRefusesItsCredential() async throws {
        try await withWebSocketServer { server, manager in
            let asked = Asked()
            await manager.setCredential(URLCredential(user: "ignored", password: "x", persistence: .none), forHost: "127.0.0.1")
            await manager.setHooks(SessionHooks(challenge: { context in
                let space = context.challenge.protectionSpace
                let count = asked.contexts.withLock { list in
                    list.append((context.authenticationMethod, space.realm, context.previousFailureCount,
                                 (context.challenge.failureResponse as? HTTPURLResponse)?.statusCode, context.host))
                    return list.count
                }
                let password = count == 1 ? "wrong" : "pass"
                return .useCredential(URLCredential(user: "user", password: password, persistence: .none))
            }))
            let socket = try await manager.webSocket(to: server.url("/auth"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("Basic dXNlcjpwYXNz"))
            try await socket.close()
            let contexts = asked.contexts.withLock { $0 }
            #expect(contexts.map(\.failures) == [0, 1])
            #expect(contexts.allSatisfy { $0.method == NSURLAuthenticationMethodHTTPBasic && $0.realm == "ws" && $0.status == 401 && $0.host == "127.0.0.1" })
        }
    }

    @Test func aRefusingHookLeavesTheRefusal() async throws {
        try await withWebSocketServer { server, manager in
            let asked = Asked()
            await manager.setHooks(SessionHooks(challenge: { context in
                asked.contexts.withLock { $0.append((context.authenticationMethod, nil, context.previousFailureCount, nil, context.host)) }
                return .refuse
            }))
            let refused = await expectNetworkingError { _ = try await manager.webSocket(to: server.url("/auth")) }
            #expect(refused?.kind == .webSocketHandshakeFailed)
            #expect(refused?.response?.statusCode == 401)
            #expect(asked.contexts.withLock { $0.count } == 1)
        }
    }

    @Test func aHookGivingWrongCredentialsStopsAtTheAttemptLimit() async throws {
        try await withWebSocketServer { server, manager in
            let asked = Asked()
            await manager.setHooks(SessionHooks(challenge: { context in
                asked.contexts.withLock { $0.append((context.authenticationMethod, nil, context.previousFailureCount, nil, context.host)) }
                return .useCredential(URLCredential(user: "user", password: "wrong", persistence: .none))
            }))
            let refused = await expectNetworkingError { _ = try await manager.webSocket(to: server.url("/auth")) }
            #expect(refused?.response?.statusCode == 401)
            #expect(asked.contexts.withLock { $0.map(\.failures) } == Array(0..<(await manager.maxAuthenticationAttempts)))
        }
    }
}
