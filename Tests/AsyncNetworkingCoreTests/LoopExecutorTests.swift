@testable import AsyncNetworkingCore
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

extension SessionManager {
    /// Runs `body` isolated to the manager (a test probe).
    func runOnActor<T: Sendable>(_ body: @Sendable (isolated SessionManager) -> T) -> T { body(self) }

    /// Whether entering `withUnsafeContinuation` from the actor keeps the actor: a job queued on
    /// the actor just before must not have run by the time the continuation's closure runs.
    func continuationEntryKeepsTheActor() async -> Bool {
        let ranBetween = SanitizedMutex(false)
        perform { _ in ranBetween.withLock { $0 = true } }
        return await withUnsafeContinuation { continuation in
            continuation.resume(returning: !ranBetween.withLock { $0 })
        }
    }
}

/// On curl the manager's actor runs on its curl loop thread, and the loop is offered as a
/// `TaskExecutor` (``SessionManager/taskExecutor``).
@Suite("Curl loop as the manager's executor")
struct LoopExecutorTests {
    /// Whether the caller runs on `manager`'s curl loop thread.
    static func onLoop(_ manager: SessionManager) -> Bool {
        guard case .curl(let curl) = manager.engine else { return false }
        return curl.loop.executor.isCurrentThread
    }

    @Test("the actor runs on the curl loop thread")
    func theActorRunsOnTheLoopThread() async throws {
        let manager = SessionManager(transport: .curl)
        let onLoop = await manager.runOnActor { Self.onLoop($0) }
        #expect(onLoop)
        #expect(!Self.onLoop(manager))
        await manager.invalidateAndCancel()
    }

    /// An ordinary caller (no task executor preference): its actor jobs run as the actor's alone,
    /// so re-entering the actor (here `withUnsafeContinuation(isolation:)`) needs no new job. A task
    /// that prefers the loop (`withTaskExecutorPreference`) still gets one there: `enqueue` cannot
    /// tell which task a job belongs to, so the runtime sees another task executor — a job on the
    /// same thread; library code never relies on its absence (state is re-checked in the closure).
    @Test("awaiting a continuation on the actor is no suspension point before its closure (no hidden hop)")
    func continuationEntryKeepsTheActor() async throws {
        let manager = SessionManager(transport: .curl)
        for _ in 0..<20 { #expect(await manager.continuationEntryKeepsTheActor()) }
        await manager.invalidateAndCancel()
        // After invalidation the actor runs on the fallback queue: the same holds there.
        #expect(await manager.continuationEntryKeepsTheActor())
    }

    @Test("a caller's loop over a transfer's events runs on the curl loop thread and gets every byte")
    func aLoopOnTheTaskExecutorRunsOnTheLoopThread() async throws {
        let manager = SessionManager(transport: .curl)
        let executor = try #require(manager.taskExecutor)
        let server = try LoopbackServer()
        defer { server.stop() }
        let size = 4 << 20
        let (received, onLoop) = try await withDeadline {
            try await withTaskExecutorPreference(executor) {
                var onLoop = Set<Bool>()
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(size)")))
                var received = 0
                for try await event in handle.events {
                    onLoop.insert(Self.onLoop(manager))
                    if case .data(let chunk) = event { received += chunk.count }
                }
                return (received, onLoop)
            }
        }
        #expect(received == size)
        #expect(onLoop == [true])
        await manager.invalidateAndCancel()
    }

    @Test("the URLSession transport offers no task executor")
    func urlSessionHasNoTaskExecutor() async {
        let manager = SessionManager(transport: .urlSession)
        #expect(manager.taskExecutor == nil)
        await manager.invalidateAndCancel()
    }

    @Test("after invalidation the loop has stopped, yet the actor still answers and new transfers fail cleanly")
    func theActorOutlivesItsLoop() async throws {
        let manager = SessionManager(transport: .curl)
        let server = try LoopbackServer()
        defer { server.stop() }
        try await withDeadline {
            let (body, _) = try await manager.data(for: URLRequest(url: server.url("/bytes/100")))
            #expect(body.count == 100)
            await manager.invalidate()
            // The loop thread has exited: these jobs run on the fallback queue.
            for _ in 0..<50 { _ = await manager.activeTransferCount }
            #expect(await manager.isActive == false)
            do {
                _ = try await manager.data(for: URLRequest(url: server.url("/bytes/100")))
                Issue.record("a transfer started on an invalidated manager")
            } catch {
                #expect((error as? NetworkingError)?.kind == .sessionInvalidated)
            }
        }
    }

    @Test("many callers at once from the cooperative pool all get their answers (jobs are never lost)")
    func concurrentCallersAreAllServed() async throws {
        let manager = SessionManager(transport: .curl)
        let server = try LoopbackServer()
        defer { server.stop() }
        let total = try await withDeadline {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        if index % 2 == 0 { _ = await manager.activeTransferCount; return 0 }
                        return try await manager.data(for: URLRequest(url: server.url("/bytes/\(index)"))).0.count
                    }
                }
                return try await group.reduce(0, +)
            }
        }
        #expect(total == (0..<200).filter { $0 % 2 == 1 }.reduce(0, +))
        await manager.invalidateAndCancel()
    }
}
