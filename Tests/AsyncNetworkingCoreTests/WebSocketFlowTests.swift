@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

@Suite("WebSocket compression, flow control and TLS against a real peer", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketFlowTests {
    @Test(arguments: ["", "server_no_context_takeover; client_no_context_takeover", "server_max_window_bits=10; client_max_window_bits=9"])
    func permessageDeflateRoundTrip(parameters: String) async throws {
        try await withWebSocketServer { server, manager in
            let query = parameters.isEmpty ? "" : "?params=" + parameters.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let socket = try await manager.webSocket(to: server.url("/echo" + query), options: WebSocketOptions(compression: .standard))
            #expect(socket.negotiatedExtensions == ["permessage-deflate" + (parameters.isEmpty ? "" : "; " + parameters)])
            let text = String(repeating: "compressible text ✓ ", count: 50_000) // ~1 MB
            let binary = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 % 251) })
            var iterator = socket.messages.makeAsyncIterator()
            for _ in 0..<3 {
                try await socket.send(.text(text))
                try await socket.send(.binary(binary))
                try await socket.send(.text(""))
                #expect(try await iterator.next() == .text(text))
                #expect(try await iterator.next() == .binary(binary))
                #expect(try await iterator.next() == .text(""))
            }
            try await socket.close()
            #expect(try await iterator.next() == nil)
        }
    }

    @Test func deflateRefusedByTheServerFallsBackToPlainFrames() async throws {
        try await withWebSocketServer { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo?nodeflate=1"), options: WebSocketOptions(compression: .standard))
            #expect(socket.negotiatedExtensions.isEmpty)
            try await socket.send(.text("plain"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("plain"))
            try await socket.close()
        }
    }

    @Test func decompressionBombClosesWith1009() async throws {
        try await withWebSocketServer { server, manager in
            let options = WebSocketOptions(maximumMessageSize: 4 << 20, compression: .standard)
            let socket = try await manager.webSocket(to: server.url("/bomb"), options: options)
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty)
            #expect(error?.kind == .webSocketFailed(closeCode: 1009))
        }
    }

    /// A slow reader holds the peer back: while nobody reads, the client stops reading the socket
    /// once its queue is full (memory stays bounded); reading again gets every message, in order.
    @Test func slowReaderHoldsThePeerBackThroughTCP() async throws {
        try await withWebSocketServer { server, manager in
            let options = WebSocketOptions(maximumMessageSize: 2 << 20, receiveBufferSize: 2 << 20)
            let count = 48 // 48 MiB: far more than the socket buffers and the queue hold together
            let socket = try await manager.webSocket(to: server.url("/flood?count=\(count)"), options: options)
            #expect(await eventually { socket.channel.state.withLock { $0.readPaused } })
            let queued = socket.channel.state.withLock { $0.inboundCost }
            #expect(queued <= options.receiveBufferSize + options.maximumMessageSize)
            var iterator = socket.messages.makeAsyncIterator()
            for index in 0..<count {
                let message = try await iterator.next()
                #expect(message == .binary(Data(repeating: UInt8(index), count: 1 << 20)), "message \(index)")
                let held = socket.channel.state.withLock { $0.inboundCost + ($0.machine?.bufferedByteCount ?? 0) }
                #expect(held <= options.receiveBufferSize + 2 * options.maximumMessageSize)
            }
            #expect(try await iterator.next() == .text("done"))
            try await socket.close()
        }
    }

    /// A peer that reads nothing: send() suspends once the output passes its limit (the bytes
    /// queued stay bounded), and a suspended send can be cancelled.
    @Test func sendSuspendsUnderBackPressure() async throws {
        try await withWebSocketServer { server, manager in
            let options = WebSocketOptions(sendBufferSize: 256 << 10, closeTimeout: .milliseconds(200))
            // The peer stalls far longer than any deadline below: on a loaded machine its close must
            // never race the assertions (at 30 s it did, at load 5–7, as `.webSocketClosed`).
            let socket = try await manager.webSocket(to: server.url("/stall?seconds=600"), options: options)
            let chunk = Data(repeating: 7, count: 128 << 10)
            let sender = Task {
                var sent = 0
                do {
                    while true {
                        try await socket.send(.binary(chunk))
                        sent += 1
                    }
                } catch {
                    return (sent, error as? NetworkingError)
                }
            }
            // The sender ends up suspended: the queue stops at its limit.
            #expect(await eventually { socket.channel.state.withLock { !$0.senders.isEmpty } })
            let buffered = socket.channel.state.withLock { $0.bufferedOutput }
            #expect(buffered <= options.sendBufferSize + chunk.count + 64)
            sender.cancel()
            let (sent, error) = await sender.value
            #expect(sent > 0)
            #expect(error?.kind == .cancelled)
            try await socket.close()
        }
    }

    @Test func secureWebSocketWithTheTestCA() async throws {
        guard TestPKI.isAvailable else { return }
        try await withWebSocketServer(tls: true) { server, manager in
            let socket = try await manager.webSocket(to: server.url("/echo"), options: WebSocketOptions(compression: .standard))
            let big = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            try await socket.send(.binary(big))
            try await socket.send(.text("over TLS"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .binary(big))
            #expect(try await iterator.next() == .text("over TLS"))
            try await socket.ping()
            try await socket.close()
        }
    }

    @Test func secureWebSocketRefusesAnUntrustedServer() async throws {
        guard TestPKI.isAvailable else { return }
        let pki = try await TestPKI.make()
        let server = try await startWebSocketServer { try WebSocketTestServer(certificate: pki.file("good-chain.pem"), key: pki.file("good.key")) }
        defer { server.stop() }
        let manager = SessionManager(transport: .curl) // system roots: the test CA is not among them
        _ = try await withDeadline {
            await expectWebSocketError({ _ = try await manager.webSocket(to: server.url("/echo")) }) {
                $0 == .serverTrustFailed(host: "127.0.0.1", reason: .untrustedRoot) // classified as for HTTP
            }
        }
    }
}
