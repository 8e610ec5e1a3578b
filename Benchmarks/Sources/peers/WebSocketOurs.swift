import BenchmarkSupport
import AsyncNetworking
import Foundation

/// The `ours` WebSocket contender: `SessionManager().webSocket(to:)` with default options.
enum OursWebSocket {
    static func run(_ spec: WSChildSpec) async throws -> WSMeasured {
        guard let url = URL(string: spec.server) else { throw BenchmarkError("bad URL \(spec.server)") }
        let manager = SessionManager()
        let socket = try await manager.webSocket(to: url)
        var connection = Connection(socket: socket, iterator: socket.messages.makeAsyncIterator())
        let measured = try await EchoWorkload.run(spec.scenario, count: spec.size, on: &connection)
        try await socket.close(code: .normalClosure, reason: "")
        await manager.invalidateAndCancel()
        return measured
    }

    private struct Connection: EchoConnection {
        static let payload = Data(repeating: 0x5A, count: WSScenario.bulk.messageBytes)
        let socket: WebSocket
        var iterator: WebSocketMessages.Iterator

        func sendText() async throws { try await socket.send(.text(EchoWorkload.text)) }
        func sendBinary() async throws { try await socket.send(.binary(Self.payload)) }

        mutating func receive() async throws -> Int {
            switch try await iterator.next() {
            case .text(let text): return text.utf8.count
            case .binary(let data): return data.count
            case nil: throw BenchmarkError("the connection closed early")
            }
        }
    }
}
