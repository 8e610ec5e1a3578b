@testable import AsyncNetworkingTestSupport

/// The README's usage example, compiled and run against the loopback server. Keep the body of
/// `readmeExample` identical to the README's code block.
@Suite("README example")
struct ReadmeExampleTests {
    func readmeExample(baseURL: URL) async throws -> (Int, Int64) {
        // --- README example begins ---
        try await withSessionManager { manager in
            // Await a whole body.
            let (body, response) = try await manager.data(from: baseURL.appendingPathComponent("json"))
            print(response.statusCode, body.count)

            // Stream a transfer: response, data chunks and progress, in order.
            let handle = try await manager.dataTask(with: URLRequest(url: baseURL.appendingPathComponent("bytes/1048576")))
            var received: Int64 = 0
            for try await event in handle.events {
                if case .data(let chunk) = event { received += Int64(chunk.count) }
                if case .downloadProgress(let progress) = event { print(progress.fractionCompleted ?? 0) }
            }
            return (response.statusCode, received)
        }
        // --- README example ends ---
    }

    @Test func readmeExampleRuns() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let (status, received) = try await withDeadline { try await self.readmeExample(baseURL: server.baseURL) }
        #expect(status == 200)
        #expect(received == 1_048_576)
    }
}
