@testable import AsyncNetworkingTestSupport

/// The graceful shutdown of <doc:SessionsAndEvents> ("Shutting a manager down in a service"), run
/// against the loopback server. Keep `shutDown` identical to the article's code block.
@Suite("Shutdown doc example")
struct ShutdownDocExampleTests {
    // --- SessionsAndEvents example begins ---
    // Running calls finish for up to `grace`; then the rest end with .sessionInvalidated.
    func shutDown(_ manager: SessionManager, grace: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await manager.invalidate() }                  // no new transfers; running ones go on
            group.addTask {
                try? await Task.sleep(for: grace)
                await manager.invalidateAndCancel()                       // returns at once if already invalid
            }
            await group.next()
            group.cancelAll()
        }
    }
    // --- SessionsAndEvents example ends ---

    @Test func aRunningCallFinishesWithinTheGraceAndNewCallsFail() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager()
        let gate = UUID().uuidString
        try await withDeadline {
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/gated-bytes?bytes=4096&after=1024&gate=\(gate)")))
            let shutdown = Task { await self.shutDown(manager, grace: .seconds(hangDeadline * 4)) }
            #expect(await eventually { await !manager.isActive })
            let refused = await expectNetworkingError { try await manager.data(from: server.url("/json")) }
            #expect(refused?.kind == .sessionInvalidated)
            server.openGate(gate)
            var received = 0
            for try await event in handle.events {
                if case .data(let chunk) = event { received += chunk.count }
            }
            #expect(received == 4096, "the running call finished")
            await shutdown.value
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func aCallStillRunningAfterTheGraceIsCancelled() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager()
        try await withDeadline {
            // Its gate is never opened: the body stops halfway until the manager gives up on it.
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/gated-bytes?bytes=4096&after=1024&gate=\(UUID().uuidString)")))
            await self.shutDown(manager, grace: .milliseconds(200))
            let error = await expectNetworkingError {
                for try await _ in handle.events {}
            }
            #expect(error?.kind == .sessionInvalidated)
            #expect(await manager.activeTransferCount == 0)
            #expect(await !manager.isActive)
        }
    }
}
