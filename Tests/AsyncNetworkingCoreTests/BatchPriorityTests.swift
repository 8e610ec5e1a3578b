@testable import AsyncNetworkingTestSupport

@Suite("Batch: manager-wide limit and priority")
struct BatchPriorityTests {
    /// A small request tagged `i=TAG`, whose body is checked against its seed.
    private func tagged(_ server: LoopbackServer, _ tag: String, seed: Int) -> URLRequest {
        URLRequest(url: server.url("/bytes/16?seed=\(seed)&i=\(tag)"))
    }

    /// Starts a transfer that holds the only slot (a long `/delay`) and waits until it runs. It holds
    /// the slot until ``release(_:)`` cancels it, so a slow test runner cannot let it end early.
    private func block(_ server: LoopbackServer, _ manager: SessionManager) async throws -> TransferHandle {
        let blocker = try await manager.dataTask(with: URLRequest(url: server.url("/delay/\(neverEnding)?i=blocker")))
        #expect(await eventually { server.stats.inFlight == 1 })
        return blocker
    }

    /// Frees the slot the blocker holds.
    private func release(_ blocker: TransferHandle) async {
        blocker.cancel()
        _ = try? await collectEvents(blocker)
    }

    @Test func priorityOrderHoldsUnderACapOfOne() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 1) { server, manager in
            server.resetStats()
            let blocker = try await block(server, manager)
            let queued: [(String, TransferPriority)] = [
                ("low-1", .low), ("normal-1", .normal), ("high-1", .high),
                ("low-2", .low), ("high-2", .high), ("normal-2", .normal),
            ]
            var handles: [TransferHandle] = []
            for (seed, (tag, priority)) in queued.enumerated() {
                // Registered one after the other, so FIFO order within a priority is this order.
                handles.append(try await manager.dataTask(with: tagged(server, tag, seed: seed), options: TransferOptions(priority: priority)))
            }
            #expect(await manager.waitingTransferCount == 6)
            await release(blocker)
            for (seed, handle) in handles.enumerated() {
                var body = Data()
                for try await event in handle.events { if case .data(let chunk) = event { body.append(chunk) } }
                #expect(body == SeededBytes.data(seed: UInt64(seed), offset: 0, count: 16))
            }
            let order = BatchFixtures.loggedTags(server, pathPrefix: "/bytes/")
            #expect(order == ["high-1", "high-2", "normal-1", "normal-2", "low-1", "low-2"])
            // The manager never ran two at once (the server's own count can briefly overlap the
            // cancelled blocker's teardown with the next request).
            #expect(await manager.peakRunningTransferCount == 1)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func aCancelledWaitingTransferNeverReachesTheServer() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 1) { server, manager in
            let blocker = try await block(server, manager)
            let first = try await manager.dataTask(with: tagged(server, "first", seed: 1))
            let cancelledHandle = try await manager.dataTask(with: tagged(server, "cancelled-handle", seed: 2))
            let urgent = try await manager.dataTask(with: tagged(server, "urgent", seed: 3), options: TransferOptions(priority: .high))
            let cancelledCall = Task { try await manager.data(for: tagged(server, "cancelled-call", seed: 4)) }
            #expect(await eventually { await manager.waitingTransferCount == 4 })

            cancelledHandle.cancel()
            let handleError = await expectNetworkingError { try await collectEvents(cancelledHandle) }
            #expect(handleError?.kind == .cancelled)
            cancelledCall.cancel()
            let callError = await expectNetworkingError { try await cancelledCall.value }
            #expect(callError?.kind == .cancelled)
            #expect(await manager.waitingTransferCount == 2, "both left the queue without starting")

            await release(blocker)
            _ = try await collectEvents(first)
            _ = try await collectEvents(urgent)
            #expect(await manager.activeTransferCount == 0)
            let order = BatchFixtures.loggedTags(server, pathPrefix: "/bytes/")
            #expect(order == ["urgent", "first"])
        }
    }

    @Test func batchMembersWaitWithTheirPriority() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 1) { server, manager in
            let blocker = try await block(server, manager)
            let low = (0..<3).map { tagged(server, "low-\($0)", seed: $0) }
            let high = (0..<3).map { tagged(server, "high-\($0)", seed: 10 + $0) }
            let lowBatch = Task { try await manager.data(for: low, width: 3, options: TransferOptions(priority: .low)) }
            #expect(await eventually { await manager.waitingTransferCount == 3 })
            let highBatch = Task { try await manager.data(for: high, width: 3, options: TransferOptions(priority: .high)) }
            #expect(await eventually { await manager.waitingTransferCount == 6 })
            await release(blocker)
            let lowResults = try await lowBatch.value
            let highResults = try await highBatch.value
            #expect(lowResults.map(\.0) == (0..<3).map { SeededBytes.data(seed: UInt64($0), offset: 0, count: 16) })
            #expect(highResults.map(\.0) == (0..<3).map { SeededBytes.data(seed: UInt64(10 + $0), offset: 0, count: 16) })
            let order = BatchFixtures.loggedTags(server, pathPrefix: "/bytes/")
            #expect(order.prefix(3).allSatisfy { $0.hasPrefix("high-") })
            #expect(order.suffix(3).allSatisfy { $0.hasPrefix("low-") })
        }
    }

    @Test func theBatchWidthAndTheManagerLimitBothApply() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 2) { server, manager in
            server.resetStats()
            let results = try await manager.data(for: BatchFixtures.delayRequests(server, Array(repeating: 200, count: 10)), width: 5)
            #expect(results.count == 10)
            #expect(server.stats.maxInFlight <= 2)
            #expect(await manager.peakRunningTransferCount == 2)
        }
    }
}
