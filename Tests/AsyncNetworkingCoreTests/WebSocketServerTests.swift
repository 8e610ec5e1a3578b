@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// Starts a ``WebSocketTestServer`` on a thread of its own: it blocks until the python peer prints
/// its port, which must not hold a thread of the cooperative pool while the suite runs in parallel.
func startWebSocketServer(_ make: @escaping @Sendable () throws -> WebSocketTestServer) async throws -> WebSocketTestServer {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try make() }) }.start()
    }
}

/// Runs `body` with a fresh ``WebSocketTestServer`` and a curl manager, under a hang deadline.
func withWebSocketServer<T: Sendable>(
    tls: Bool = false, _ body: @escaping @Sendable (WebSocketTestServer, SessionManager) async throws -> T
) async throws -> T {
    let server: WebSocketTestServer
    var policy = SecurityPolicy.default
    if tls {
        let pki = try await TestPKI.make()
        server = try await startWebSocketServer { try WebSocketTestServer(certificate: pki.file("good-chain.pem"), key: pki.file("good.key")) }
        policy = SecurityPolicy(evaluation: .customRoots([try pki.certificate("ca.pem")]))
    } else {
        server = try await startWebSocketServer { try WebSocketTestServer() }
    }
    defer { server.stop() }
    let manager = SessionManager(transport: .curl, securityPolicy: policy)
    return try await withDeadline { try await body(server, manager) }
}

/// Expects `body` to throw a ``NetworkingError`` whose kind satisfies `matches`; returns it.
@discardableResult
func expectWebSocketError(
    _ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation, _ matches: (NetworkingError.Kind) -> Bool
) async -> NetworkingError? {
    do {
        try await body()
        Issue.record("no error was thrown", sourceLocation: sourceLocation)
    } catch let error as NetworkingError {
        #expect(matches(error.kind), "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Reads every remaining message; the error (if any) that ended the sequence.
func drain(_ socket: WebSocket) async -> (messages: [WebSocketMessage], error: NetworkingError?) {
    var messages: [WebSocketMessage] = []
    do {
        for try await message in socket.messages { messages.append(message) }
        return (messages, nil)
    } catch {
        return (messages, error)
    }
}

@Suite("WebSocket against a real peer (Python test server)", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketServerTests {
    @Test func echoTextAndBinaryThenClientClose() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo"), protocols: ["a", "b"])
            #expect(socket.negotiatedProtocol == "b")
            #expect(socket.negotiatedExtensions.isEmpty)
            try await socket.send(.text("héllo ✓"))
            try await socket.send(.binary(Data([0, 1, 2, 255])))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("héllo ✓"))
            #expect(try await iterator.next() == .binary(Data([0, 1, 2, 255])))
            try await socket.close(code: .normalClosure, reason: "done")
            #expect(try await iterator.next() == nil)
            #expect(socket.closeCode == .normalClosure)
            await expectWebSocketError({ try await socket.send(.text("late")) }) { $0 == .webSocketClosed }
        }
    }

    @Test func largeMessagesBothWays() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo"))
            let big = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let text = String(repeating: "añ𝄞", count: 200_000) // 1.6 MB of UTF-8
            try await socket.send(.binary(big))
            try await socket.send(.text(text))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(big))
            #expect(try await iterator.next() == .text(text))
            try await socket.close()
        }
    }

    /// `ping()` returns when the pong echoing its payload arrives, and not before: the peer
    /// reports the ping it read, sends a pong with another payload (which answers nothing), and
    /// sends the right pong only when asked.
    @Test func pingAwaitsItsPong() async throws {
        try await withHostileWebSocketPeer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/ping-probe"))
            let state = socket.channel.state
            let returned = SanitizedMutex(false)
            let ping = Task {
                try await socket.ping()
                returned.withLock { $0 = true }
            }
            var iterator = socket.messages.makeAsyncIterator()
            guard case .text(let report)? = try await iterator.next() else {
                Issue.record("the peer did not report a ping")
                return
            }
            // A ping frame, with the 8-byte payload the client chose for it.
            #expect(report.hasPrefix("got ping ") && report.count == "got ping ".count + 16, "\(report)")
            let payload = state.withLock { $0.pings.first.map { $0.payload.map { String(format: "%02x", $0) }.joined() } }
            #expect(report == "got ping " + (payload ?? "none"))
            #expect(try await iterator.next() == .text("sent other"))
            // The pong with another payload came before "sent other" and answered nothing.
            #expect(state.withLock { $0.pings.count } == 1)
            #expect(!returned.withLock { $0 })
            try await socket.send(.text("answer now"))
            #expect(try await iterator.next() == .text("answered"))
            // The right pong came before "answered": the ping is answered.
            #expect(state.withLock { $0.pings.isEmpty })
            try await ping.value
            #expect(returned.withLock { $0 })
            try await socket.close()
        }
    }

    @Test func fragmentedMessageWithInterleavedControlFramesAndAutomaticPong() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/fragmented"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("Hello, wörld"))
            #expect(try await iterator.next() == .text("got 10 p1")) // our automatic pong echoed "p1"
            try await socket.close()
            #expect(try await iterator.next() == nil)
        }
    }

    @Test func serverInitiatedCloseEndsMessagesWithItsCode() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/server-close"))
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty)
            #expect(error == nil)
            #expect(socket.closeCode == .goingAway)
            #expect(socket.closeReason == "going away")
            try await socket.close() // already closed: returns
        }
    }

    @Test func serverCloseAfterMessages() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo"))
            try await socket.send(.text("one"))
            try await socket.send(.text("close-me"))
            let (messages, error) = await drain(socket)
            #expect(messages == [.text("one")])
            #expect(error == nil)
            #expect(socket.closeCode == WebSocketCloseCode(rawValue: 4000))
            #expect(socket.closeReason == "bye ✓")
        }
    }

    @Test(arguments: [
        ("/rsv", UInt16(1002)), ("/opcode", 1002), ("/bad-utf8", 1007), ("/bad-close-code", 1002), ("/big-control", 1002),
        ("/too-big", 1009),
    ])
    func protocolViolationsFailWithTheRightCloseCode(path: String, code: UInt16) async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url(path), options: WebSocketOptions(maximumMessageSize: 1 << 20))
            let (_, error) = await drain(socket)
            #expect(error?.kind == .webSocketFailed(closeCode: code), "\(String(describing: error))")
        }
    }

    @Test(arguments: ["/status", "/redirect", "/bad-accept", "/wrong-protocol", "/unoffered-extension"])
    func handshakeFaultsAreRefused(path: String) async throws {
        try await withWebSocketServer { server, manager in
            let error = await expectWebSocketError({ _ = try await manager.webSocket(to: server.url(path), protocols: ["chat"]) }) {
                $0 == .webSocketHandshakeFailed
            }
            if path == "/status" { #expect(error?.statusCode == 403) }
            if path == "/redirect" { #expect(error?.statusCode == 302) }
        }
    }

    @Test func headersAndHostAreSent() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/headers"), headers: ["X-Test": "v1"])
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("v1|127.0.0.1:\(server.port)"))
            try await socket.close()
        }
    }

    @Test func reservedHeadersAndBadArgumentsAreRefusedBeforeSending() async throws {
        let manager = SessionManager(transport: .curl)
        let url = URL(string: "ws://127.0.0.1:9/")!
        await expectWebSocketError({ _ = try await manager.webSocket(to: url, headers: ["Sec-WebSocket-Key": "x"]) }) { $0 == .webSocketHandshakeFailed }
        await expectWebSocketError({ _ = try await manager.webSocket(to: url, protocols: ["a b"]) }) { $0 == .webSocketHandshakeFailed }
        await expectWebSocketError({ _ = try await manager.webSocket(to: URL(string: "ftp://127.0.0.1/")!) }) { $0 == .unsupportedScheme("ftp") }
        let offer = WebSocketCompression(clientMaxWindowBits: 8)
        await expectWebSocketError({ _ = try await manager.webSocket(to: url, options: WebSocketOptions(compression: offer)) }) { $0 == .webSocketHandshakeFailed }
    }

    @Test func connectionRefusedIsATransportError() async throws {
        let manager = SessionManager(transport: .curl)
        // Port 1 (tcpmux): nothing listens there, and an unprivileged test cannot bind it.
        await expectWebSocketError({ _ = try await manager.webSocket(to: URL(string: "ws://127.0.0.1:1/")!) }) {
            $0 == .transport(.cannotConnectToHost)
        }
    }

    @Test func peerDroppingTheConnectionIsAnError() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/drop"))
            let (messages, error) = await drain(socket)
            #expect(messages == [.text("bye")])
            #expect(error?.kind == .transport(.networkConnectionLost))
        }
    }

    @Test func closeTimesOutWhenThePeerNeverAnswers() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/no-close-echo"), options: WebSocketOptions(closeTimeout: .milliseconds(300)))
            try await socket.close()
            let (_, error) = await drain(socket)
            #expect(error?.kind == .transport(.timedOut))
        }
    }

    @Test func cancellingTheReaderClosesWith1001() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo"))
            let reader = Task { await drain(socket) }
            try await Task.sleep(for: .milliseconds(50))
            reader.cancel()
            let (_, error) = await reader.value
            #expect(error?.kind == .cancelled)
            // The close handshake runs: the echo server answers our 1001 and the connection ends.
            #expect(await eventually { socket.channel.state.withLock { $0.phase == .finished } })
            #expect(socket.closeCode == .goingAway) // the server echoed our code
        }
    }

    @Test func invalidCloseCodeIsRefused() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo"))
            await expectWebSocketError({ try await socket.close(code: WebSocketCloseCode(rawValue: 1005)) }) { $0 == .webSocketClosed }
            try await socket.close()
        }
    }
}

@Suite("WebSocket transports")
struct WebSocketTransportTests {
    @Test func urlSessionTransportIsUnsupported() async throws {
        let manager = SessionManager(transport: .urlSession)
        await expectWebSocketError({ _ = try await manager.webSocket(to: URL(string: "ws://127.0.0.1:9/")!) }) { $0 == .unsupportedOperation }
    }

    @Test func platformDefaultTransportUnderTheEnvironment() async throws {
        let manager = SessionManager()
        guard manager.transport == .urlSession else { return } // curl: covered by the server tests
        let error = await expectWebSocketError({ _ = try await manager.webSocket(to: URL(string: "ws://127.0.0.1:9/")!) }) { $0 == .unsupportedOperation }
        #expect(error?.message.contains("curl transport") == true)
    }
}

@Suite("WebSocket through HTTPClient", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketHTTPClientTests {
    @Test func relativeToTheBaseURLWithDefaultHeaders() async throws {
        try await withWebSocketServer { server, manager in
            var client = HTTPClient(manager: manager, baseURL: URL(string: "http://127.0.0.1:\(server.port)/api/"))
            client.defaultHeaders = ["X-Test": "default"]
            let socket = try await client.webSocket("/headers", headers: ["X-Test": "mine"])
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("mine|127.0.0.1:\(server.port)"))
            try await socket.close()
        }
    }
}

@Suite("WebSocket lifetime", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketLifetimeTests {
    /// Iterating the messages of a socket nobody else holds keeps it open.
    @Test func messagesKeepTheSocketAlive() async throws {
        try await withWebSocketServer { server, manager in
            let messages = try await manager.webSocket(to: server.url("/server-close")).messages
            var count = 0
            for try await _ in messages { count += 1 }
            #expect(count == 0) // ended by the server's close, not by a release
        }
    }

    /// Releasing the last reference to an open socket closes it (1001): its I/O thread ends.
    @Test func releasingTheSocketClosesIt() async throws {
        try await withWebSocketServer { server, manager in
            var socket: WebSocket? = try await manager.webSocket(to: server.url("/echo"))
            let channel = socket!.channel
            socket = nil
            #expect(await eventually { channel.state.withLock { $0.phase == .finished } })
            #expect(channel.state.withLock { $0.peerCloseCode } == .goingAway)
        }
    }
}

@Suite("WebSocket handshake timeout and cancellation", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketHandshakeWaitTests {
    @Test func handshakeTimesOut() async throws {
        try await withWebSocketServer { server, manager in
            let options = WebSocketOptions(handshakeTimeout: .milliseconds(300))
            await expectWebSocketError({ _ = try await manager.webSocket(to: server.url("/silent"), options: options) }) { $0 == .transport(.timedOut) }
        }
    }

    @Test func cancellingTheHandshakeThrowsCancelled() async throws {
        try await withWebSocketServer { server, manager in
            let opening = Task { try await manager.webSocket(to: server.url("/silent")) }
            try await Task.sleep(for: .milliseconds(100))
            opening.cancel()
            await expectWebSocketError({ _ = try await opening.value }) { $0 == .cancelled }
        }
    }
}
