@testable import AsyncNetworkingTestSupport

/// The rule: the opening handshake gets what an HTTP request to the same URL gets. User info in the
/// URL is a credential for that URL's origin: an HTTP request sends it at once as
/// `Authorization: Basic` of the decoded user and password (curl and URLSession alike), unless the
/// request has an `Authorization` of its own; a WebSocket to the same URL sends the same field.
/// Before, `ws://user:pw@host/` sent nothing and said nothing.
@Suite("WebSocket URL user info", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketUserInfoTests {
    /// The `Authorization` an HTTP request to `http://USERINFO@127.0.0.1:PORT/` sends on `transport`.
    private static func httpAuthorization(_ userInfo: String, on transport: SessionManager.Transport) async throws -> String? {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager(transport: transport)
        _ = try await manager.data(from: URL(string: "http://\(userInfo)@127.0.0.1:\(server.port)/bytes/1")!)
        await manager.invalidateAndCancel()
        return server.requests.last?.header("Authorization")
    }

    @Test(arguments: ["user:pass", "us%40er:p%3As%20s%C3%A9", "user", ":only-password", "user:"])
    func theHandshakeSendsWhatAnHTTPRequestToTheSameURLSends(_ userInfo: String) async throws {
        try await withHostileWebSocketPeer { server, manager in
            let overCurl = try await Self.httpAuthorization(userInfo, on: .curl)
            let overURLSession = try await Self.httpAuthorization(userInfo, on: .urlSession)
            #expect(overCurl != nil)
            #expect(overCurl == overURLSession)
            let socket = try await manager.webSocket(to: URL(string: "ws://\(userInfo)@127.0.0.1:\(server.port)/authorization")!)
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text(overCurl ?? "none"))
            try await socket.close()
        }
    }

    /// Against a server that checks the credential (401 unless `user:pass`), over `ws` and `wss`:
    /// the right user info opens the socket in one handshake; a wrong one is the server's 401, as
    /// for HTTP; the caller's own `Authorization` wins over the URL's, as for HTTP.
    @Test(arguments: [false, true])
    func aServerThatChecksTheCredentialGetsTheURLs(tls: Bool) async throws {
        if tls, !TestPKI.isAvailable { return }
        try await withWebSocketServer(tls: tls) { server, manager in
            func url(_ userInfo: String, _ path: String) -> URL {
                URL(string: "\(tls ? "wss" : "ws")://\(userInfo)@127.0.0.1:\(server.port)\(path)")!
            }
            let socket = try await manager.webSocket(to: url("user:pass", "/auth"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("Basic dXNlcjpwYXNz"))
            try await socket.close()

            let refused = await expectNetworkingError { _ = try await manager.webSocket(to: url("user:wrong", "/auth")) }
            #expect(refused?.kind == .webSocketHandshakeFailed)
            #expect(refused?.response?.statusCode == 401)
            #expect(refused.map { !"\($0)".contains("wrong") } ?? false, "no password in the error")

            let own = try await manager.webSocket(to: url("user:wrong", "/auth"), headers: ["Authorization": "Basic dXNlcjpwYXNz"])
            var ownIterator = own.messages.makeAsyncIterator()
            #expect(try await ownIterator.next() == .text("Basic dXNlcjpwYXNz"))
            try await own.close()

            // One handshake each: the credential went with the first request, not after a 401.
            let requests = try await manager.webSocket(to: server.url("/requests"))
            var requestsIterator = requests.messages.makeAsyncIterator()
            #expect(try await requestsIterator.next() == .text("/auth\n/auth\n/auth"))
            try await requests.close()
        }
    }

    /// Through a proxy the URL's credential goes to the origin, inside the tunnel: the proxy's
    /// `CONNECT` carries none of it.
    @Test func theURLsCredentialGoesThroughTheTunnelNotToTheProxy() async throws {
        let proxy = try await ProxyTestServer.started()
        defer { proxy.stop() }
        try await withWebSocketServer { server, manager in
            try await manager.setProxy(.through(ProxyTests.http(proxy.port, credential: nil)))
            let socket = try await manager.webSocket(to: URL(string: "ws://user:pass@127.0.0.1:\(server.port)/auth")!)
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("Basic dXNlcjpwYXNz"))
            try await socket.close()
            let connect = try #require(proxy.log.first { $0.hasPrefix("CONNECT 127.0.0.1:\(server.port) ") })
            #expect(!connect.contains("dXNlcjpwYXNz") && !connect.contains("user"), "\(connect)")
        }
    }
}
