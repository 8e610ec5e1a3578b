import BenchmarkSupport
import Logging
import NIOCore
import WSClient

/// The `hummingbird` WebSocket contender: swift-websocket 1.6.2's `WebSocketClient`, which runs the
/// connection inside a closure and does the close handshake when it returns.
enum HummingbirdWebSocket {
    static func run(_ spec: WSChildSpec) async throws -> WSMeasured {
        let outcome = ResultBox<Result<WSMeasured, any Error>>()
        let logger = Logger(label: "peers") { _ in SwiftLogNoOpLogHandler() }
        let configuration = WebSocketClientConfiguration(maxFrameSize: EchoServer.maxFrameSize)
        try await WebSocketClient.connect(url: spec.server, configuration: configuration, logger: logger) { inbound, outbound, _ in
            var connection = Connection(
                outbound: outbound, iterator: inbound.messages(maxSize: EchoServer.maxFrameSize).makeAsyncIterator()
            )
            do {
                outcome.set(.success(try await EchoWorkload.run(spec.scenario, count: spec.size, on: &connection)))
            } catch {
                outcome.set(.failure(error))
            }
        }
        guard let result = outcome.get() else { throw BenchmarkError("the handler did not run") }
        return try result.get()
    }

    private struct Connection: EchoConnection {
        static let payload = ByteBuffer(repeating: 0x5A, count: WSScenario.bulk.messageBytes)
        let outbound: WebSocketOutboundWriter
        var iterator: WebSocketInboundMessageStream.AsyncIterator

        func sendText() async throws { try await outbound.write(.text(EchoWorkload.text)) }
        func sendBinary() async throws { try await outbound.write(.binary(Self.payload)) }

        mutating func receive() async throws -> Int {
            switch try await iterator.next() {
            case .text(let text): return text.utf8.count
            case .binary(let buffer): return buffer.readableBytes
            case nil: throw BenchmarkError("the connection closed early")
            }
        }
    }
}
