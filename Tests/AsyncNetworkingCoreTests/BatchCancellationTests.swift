@testable import AsyncNetworkingTestSupport

@Suite("Batch: cancellation of the parent task")
struct BatchCancellationTests {
    @Test func cancellingTheParentStopsEveryMemberAndLeavesTheRegistryEmpty() async throws {
        try await withServerAndManager { server, manager in
            let requests = BatchFixtures.delayRequests(server, Array(repeating: neverEnding, count: 20))
            let task = Task { try await manager.data(for: requests, width: 4) }
            #expect(await eventually { server.stats.inFlight == 4 })
            task.cancel()
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled)
            #expect(await manager.activeTransferCount == 0, "clean as soon as the batch returns")
            #expect(await eventually { server.stats.clientAborts == 4 })
            #expect(server.stats.requestCount == 4, "the other 16 were never sent")
        }
    }

    @Test func cancellingTheParentOfASettledBatchReportsEveryMemberCancelled() async throws {
        try await withServerAndManager { server, manager in
            let requests = BatchFixtures.delayRequests(server, Array(repeating: neverEnding, count: 12))
            let task = Task { await manager.settledData(for: requests, width: 3) }
            #expect(await eventually { server.stats.inFlight == 3 })
            task.cancel()
            let results = await task.value
            #expect(results.count == 12)
            for (i, result) in results.enumerated() {
                guard case .failure(let error) = result else {
                    Issue.record("member \(i) succeeded")
                    continue
                }
                #expect(error.kind == .cancelled)
                #expect(error.request?.url == requests[i].url)
            }
            #expect(await manager.activeTransferCount == 0)
            #expect(server.stats.requestCount == 3)
        }
    }

    @Test func cancellingTheParentOfABatchWithProgressStopsEverything() async throws {
        try await withServerAndManager { server, manager in
            let requests = BatchFixtures.delayRequests(server, Array(repeating: neverEnding, count: 10))
            let (progress, reporter) = BatchProgress.makeStream()
            let task = Task { try await manager.data(for: requests, width: 2, progress: reporter) }
            #expect(await eventually { server.stats.inFlight == 2 })
            task.cancel()
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled)
            let last = await collectProgress(progress).last
            #expect(last?.finishedCount == 2)
            #expect(last?.failedCount == 2)
            #expect(await eventually { await manager.activeTransferCount == 0 })
            #expect(await eventually { server.stats.clientAborts == 2 })
            #expect(server.stats.requestCount == 2)
        }
    }

    @Test func alreadyCancelledParentSendsNothing() async throws {
        try await withServerAndManager { server, manager in
            let requests = BatchFixtures.delayRequests(server, [0, 0, 0])
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await manager.data(for: requests)
            }
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled)
            #expect(server.stats.requestCount == 0)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func cancellingTheParentOfAGenericBatchCancelsItsMembers() async throws {
        try await withServerAndManager { server, manager in
            let task = Task {
                try await manager.batch(0..<6, width: 3) { manager, i in
                    try await manager.data(from: server.url("/delay/\(neverEnding)?i=\(i)")).0
                }
            }
            #expect(await eventually { server.stats.inFlight == 3 })
            task.cancel()
            await #expect(throws: NetworkingError.self) { try await task.value }
            #expect(await manager.activeTransferCount == 0)
            #expect(server.stats.requestCount == 3)
        }
    }

    @Test func membersThatNeverStartedReportCancellationError() async throws {
        try await withServerAndManager { _, manager in
            let task = Task {
                await manager.settledBatch(0..<5, width: 1) { _, i in
                    try await Task.sleep(for: .seconds(20))
                    return i
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            task.cancel()
            let results = await task.value
            #expect(results.count == 5)
            #expect(results.allSatisfy { result in
                if case .failure(let error) = result { return error is CancellationError }
                return false
            })
        }
    }
}
