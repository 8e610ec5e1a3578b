@testable import AsyncNetworkingTestSupport

/// A WebSocket goes through the manager's proxy like an HTTP request: a `CONNECT` tunnel carrying
/// the proxy credential, which never reaches the origin.
@Suite("WebSocket through a proxy", .enabled(if: defaultTransportIsCurl && TestPKI.isAvailable, "WebSockets need the curl transport; the proxy and WebSocket test servers need python3 and openssl"))
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
            #expect(error?.kind == .proxyFailed, "\(String(describing: error))")
            #expect(error?.message.contains("407") == true, "\(String(describing: error))")
            #expect(proxy.log.contains { $0.hasPrefix("CONNECT") }, "the attempt went to the proxy, not around it")
        }
    }

    /// How a proxy fails the connection, for ``theSameProxyFailureIsTheSameErrorOnEveryConnectionKind(_:scheme:)``.
    enum ProxyFault: String, CaseIterable, Sendable {
        /// The test proxy answers `CONNECT` with 407 (no credential configured).
        case connectAnswered407
        /// Debian's tinyproxy with `BasicAuth` answers `CONNECT` with 407.
        case tinyproxyAnswered407
        /// Nothing accepts connections on the proxy's port.
        case proxyRefusesConnections
        /// A SOCKS5 proxy refuses the credential.
        case socksRefusesTheCredential
    }

    /// The rule: the same failure at the proxy is the same error on every connection kind — an
    /// HTTPS request, a `ws` and a `wss` WebSocket (each tunnelled with `CONNECT`, or through
    /// SOCKS5) all get ``NetworkingError/Kind/proxyFailed``, decided in one place
    /// (`CurlProxyFailure`). Before, a WebSocket refused with 407 got `.networkConnectionLost`.
    /// The origin (port 9) is never reached: the proxy fails first.
    @Test(arguments: ProxyFault.allCases, ["ws", "wss", "https"])
    func theSameProxyFailureIsTheSameErrorOnEveryConnectionKind(_ fault: ProxyFault, scheme: String) async throws {
        if fault == .tinyproxyAnswered407, TinyproxyServer.executable == nil { return } // apt-get install tinyproxy
        let manager = SessionManager(transport: .curl)
        var stop: @Sendable () -> Void = {}
        let configuration: ProxyConfiguration
        switch fault {
        case .connectAnswered407:
            let proxy = try await ProxyTestServer.started(requiring: ProxyTests.credential)
            stop = { proxy.stop() }
            configuration = .through(ProxyTests.http(proxy.port, credential: nil, tunnels: true))
        case .tinyproxyAnswered407:
            let proxy = try await TinyproxyServer.started(requiring: ProxyTests.credential)
            stop = { proxy.stop() }
            configuration = .through(ProxyTests.http(proxy.port, credential: nil, tunnels: true))
        case .proxyRefusesConnections:
            let refusing = try RefusingPort()
            stop = { _ = refusing }
            configuration = .through(ProxyTests.http(Int(refusing.port), tunnels: true))
        case .socksRefusesTheCredential:
            let proxy = try await ProxyTestServer.started(requiring: ProxyTests.credential)
            stop = { proxy.stop() }
            configuration = .through(.socks5(host: "127.0.0.1", port: proxy.port, credential: ProxyCredential(user: "proxy-user", password: "wrong")))
        }
        defer { stop() }
        try await manager.setProxy(configuration)
        let url = URL(string: "\(scheme)://127.0.0.1:9/")!
        let error = try await withDeadline {
            await expectNetworkingError {
                if scheme == "https" { _ = try await manager.data(from: url) } else { _ = try await manager.webSocket(to: url) }
            }
        }
        #expect(error?.kind == .proxyFailed, "\(fault) \(scheme): \(String(describing: error))")
        if fault == .connectAnswered407 || fault == .tinyproxyAnswered407 {
            #expect(error?.message.contains("407") == true, "\(String(describing: error))")
        }
        await manager.invalidateAndCancel()
    }
}

/// The manager's cookie jar applies to the opening handshake as to an HTTP request.
@Suite("WebSocket and the cookie jar", .enabled(if: defaultTransportIsCurl && WebSocketTestServer.python != nil, "WebSockets need the curl transport; the test servers need python3"))
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
@Suite("WebSocket and credentials", .enabled(if: defaultTransportIsCurl && WebSocketTestServer.python != nil, "WebSockets need the curl transport; the test servers need python3"))
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
@Suite("WebSocket and the challenge hook", .enabled(if: defaultTransportIsCurl && WebSocketTestServer.python != nil, "WebSockets need the curl transport; the test servers need python3"))
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
