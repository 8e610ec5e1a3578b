@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// A batch's members run on the executor the runner is given (none: the global executor); data
/// batches keep the global executor, which measured faster than the curl loop against nginx.
@Suite("Batch members and the curl loop executor")
struct BatchExecutorTests {
    @Test("members given the loop as executor run on the loop thread; members without one never do")
    func membersRunWhereTheyAreTold() async throws {
        let manager = SessionManager(transport: .curl)
        let executor = try #require(manager.taskExecutor)
        let onLoop = BatchRunner<Int, Bool, Never>(inputs: Array(0..<6), width: 3, executor: executor) { _, _ in
            LoopExecutorTests.onLoop(manager)
        }
        let offLoop = BatchRunner<Int, Bool, Never>(inputs: Array(0..<6), width: 3) { _, _ in
            LoopExecutorTests.onLoop(manager)
        }
        let on = await onLoop.collectSettled { _ in fatalError("never cancelled") }
        let off = await offLoop.collectSettled { _ in fatalError("never cancelled") }
        let onValues = on.map { result -> Bool? in if case .success(let value) = result { value } else { nil } }
        let offValues = off.map { result -> Bool? in if case .success(let value) = result { value } else { nil } }
        #expect(onValues == Array(repeating: true, count: 6))
        #expect(offValues == Array(repeating: false, count: 6))
        await manager.invalidateAndCancel()
    }

    @Test("a data batch on curl returns every body in input order, and its manager is usable after")
    func aDataBatchOnTheLoopGetsEveryBody() async throws {
        let manager = SessionManager(transport: .curl)
        let server = try LoopbackServer()
        defer { server.stop() }
        let sizes = [0, 1, 100, 70_000, 3, 1 << 20, 17, 4096]
        let requests = sizes.map { URLRequest(url: server.url("/bytes/\($0)")) }
        let results = try await withDeadline { try await manager.data(for: requests, width: 3) }
        #expect(results.map(\.0.count) == sizes)
        #expect(results.allSatisfy { $0.1.statusCode == 200 })
        let (single, _) = try await withDeadline { try await manager.data(from: server.url("/bytes/5")) }
        #expect(single.count == 5)
        await manager.invalidateAndCancel()
    }
}
