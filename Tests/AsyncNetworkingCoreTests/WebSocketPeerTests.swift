@testable import AsyncNetworkingTestSupport

/// Interoperability with an independent implementation: the PyPI `websockets` server.
/// CI installs it (`python3 -m pip install websockets`); without it these tests are skipped.
@Suite("WebSocket against the PyPI websockets server", .enabled(if: WebSocketTestServer.hasWebsocketsPackage, "the PyPI websockets package is not installed (python3 -m pip install websockets)"))
struct WebSocketPeerTests {
    private func withPeer(compression: Bool = true, _ body: @escaping @Sendable (WebSocketTestServer, SessionManager) async throws -> Void) async throws {
        let server = try await startWebSocketServer {
            try WebSocketTestServer(script: WebSocketTestServer.websocketsPeerScript, arguments: compression ? [] : ["--no-compression"])
        }
        defer { server.stop() }
        let manager = SessionManager(transport: .curl)
        try await withDeadline { try await body(server, manager) }
    }

    @Test(arguments: [false, true])
    func echoWithAndWithoutCompression(compressed: Bool) async throws {
        try await withPeer { server, manager in
            let options = WebSocketOptions(compression: compressed ? .standard : nil)
            let socket = try await manager.webSocket(to: server.url("/echo"), protocols: ["superchat", "chat"], options: options)
            #expect(socket.negotiatedProtocol == "chat") // the server's preference among those offered
            #expect((socket.negotiatedExtensions.first?.hasPrefix("permessage-deflate") ?? false) == compressed)
            let big = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ $0 >> 9) })
            let text = String(repeating: "interop ✓ ", count: 120_000)
            var iterator = socket.messages.makeAsyncIterator()
            for _ in 0..<2 {
                try await socket.send(.text(text))
                try await socket.send(.binary(big))
                try await socket.send(.text(""))
                #expect(try await iterator.next() == .text(text))
                #expect(try await iterator.next() == .binary(big))
                #expect(try await iterator.next() == .text(""))
            }
            try await socket.ping()
            try await socket.close(code: .normalClosure, reason: "bye")
            #expect(try await iterator.next() == nil)
        }
    }

    @Test(arguments: [
        WebSocketCompression(clientNoContextTakeover: true, serverNoContextTakeover: true),
        WebSocketCompression(clientMaxWindowBits: 10, serverMaxWindowBits: 10),
    ])
    func compressionParameters(offer: WebSocketCompression) async throws {
        try await withPeer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo"), protocols: ["chat"], options: WebSocketOptions(compression: offer))
            #expect(socket.negotiatedExtensions.count == 1)
            var iterator = socket.messages.makeAsyncIterator()
            for index in 0..<5 {
                let text = String(repeating: "message \(index) repeats itself. ", count: 2000)
                try await socket.send(.text(text))
                #expect(try await iterator.next() == .text(text))
            }
            try await socket.close()
        }
    }

    @Test func serverCloseWithCodeAndReason() async throws {
        try await withPeer(compression: false) { server, manager in
            let socket = try await manager.webSocket(to: server.url("/close"), protocols: ["chat"])
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty)
            #expect(error == nil)
            #expect(socket.closeCode == WebSocketCloseCode(rawValue: 4001))
            #expect(socket.closeReason == "done here")
        }
    }
}
