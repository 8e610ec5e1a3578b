@testable import AsyncNetworkingTestSupport

/// Many tasks sending on one WebSocket at once: frames are encoded outside the channel's lock
/// and queued in send-ticket order, so each sender's messages arrive in its order, whole, and —
/// with permessage-deflate's shared context — inflate correctly.
@Suite("WebSocket concurrent senders", .enabled(if: WebSocketTestServer.python != nil && defaultTransportIsCurl, "needs python3 and the curl transport"))
struct WebSocketConcurrentSendTests {
    static func body(sender: Int, index: Int) -> String {
        let size = [10, 300, 5_000, 70_000][(sender + index) % 4]
        return "s\(sender)-\(index)-" + String(repeating: Character(UnicodeScalar(UInt8(97 + (sender * 7 + index) % 26))), count: size)
    }

    @Test(arguments: [false, true])
    func concurrentSendersKeepTheirOrderAndTheirBytes(compressed: Bool) async throws {
        try await withWebSocketServer { server, manager in
            let senders = 8, perSender = 40
            let options = WebSocketOptions(sendBufferSize: 64 << 10, compression: compressed ? .standard : nil)
            let socket = try await manager.webSocket(to: server.url("/echo"), options: options)
            let reader = Task { () throws -> [String] in
                var received: [String] = []
                for try await message in socket.messages {
                    guard case .text(let text) = message else { continue }
                    received.append(text)
                    if received.count == senders * perSender { break }
                }
                return received
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for sender in 0..<senders {
                    group.addTask {
                        for index in 0..<perSender {
                            try await socket.send(.text(Self.body(sender: sender, index: index)))
                            if index % 7 == 0 { await Task.yield() }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let received = try await reader.value
            #expect(received.count == senders * perSender)
            var next = [Int](repeating: 0, count: senders)
            for text in received {
                let parts = text.split(separator: "-", maxSplits: 2)
                guard parts.count == 3, let sender = Int(parts[0].dropFirst()), let index = Int(parts[1]), (0..<senders).contains(sender) else {
                    Issue.record("a garbled message: \(text.prefix(40))")
                    continue
                }
                #expect(index == next[sender], "sender \(sender): got \(index), expected \(next[sender])")
                #expect(text == Self.body(sender: sender, index: index), "message \(sender)-\(index) arrived whole")
                next[sender] = index + 1
            }
            try await socket.close()
        }
    }
}
