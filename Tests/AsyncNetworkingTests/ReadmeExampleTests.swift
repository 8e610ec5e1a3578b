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

    struct Status: Decodable, Sendable { let ok: Bool; let name: String }

    /// The README's first program ("Your first program"); keep its body identical to the README's.
    func firstProgram(baseURL: URL) async throws -> Status {
        // --- README first program begins ---
        let api = HTTPClient(baseURL: baseURL)                   // e.g. https://status.internal/v1; on SessionManager.shared
        let status = try await api.get("json", as: Status.self)  // GET <base>/json: status checked, JSON decoded
        print(status.ok, status.name)
        // --- README first program ends ---
        #expect(api.manager === SessionManager.shared)
        return status
    }

    @Test func firstProgramRuns() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let status = try await withDeadline { try await self.firstProgram(baseURL: server.baseURL) }
        #expect(status.ok)
        #expect(status.name == "loopback")
    }

    @Test func readmeExampleRuns() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let (status, received) = try await withDeadline { try await self.readmeExample(baseURL: server.baseURL) }
        #expect(status == 200)
        #expect(received == 1_048_576)
    }
}
