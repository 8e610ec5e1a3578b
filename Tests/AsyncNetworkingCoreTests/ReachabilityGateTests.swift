@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// `SessionManager.setWaitsForConnectivity`: transfers started while unreachable wait (nothing
/// sent, no slot taken) and start when reachable; cancellation follows the caller. Driven by a
/// manual reachability here, by a kernel namespace in `ReachabilityNamespaceGateTests`.
struct ReachabilityGateTests {
    @Test func aTransferWaitsWhileUnreachableThenRuns() async throws {
        try await withServerAndManager { server, manager in
            let reachability = NetworkReachability(manualStatus: .unreachable)
            try await manager.setWaitsForConnectivity(true, reachability: reachability)
            let (waits, current) = await (manager.waitsForConnectivity, manager.reachability)
            #expect(waits && current === reachability)
            let transfer = Task { try await manager.data(from: server.url("/bytes/1000?seed=3")) }
            #expect(await eventually { await manager.transfersWaitingForConnectivity == 1 })
            #expect(server.stats.requestCount == 0)
            let (running, waiting) = await (manager.runningTransferCount, manager.waitingTransferCount)
            #expect(running == 0 && waiting == 0)
            reachability.publish(.reachable(via: .wifi))
            let (body, response) = try await transfer.value
            #expect(body.count == 1000 && response.statusCode == 200)
            #expect(server.stats.requestCount == 1)
            #expect(await manager.transfersWaitingForConnectivity == 0)
        }
    }

    @Test func waitingTransfersStartInArrivalOrderAndKeepTheConcurrencyLimit() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 1) { server, manager in
            let reachability = NetworkReachability(manualStatus: .unreachable)
            try await manager.setWaitsForConnectivity(true, reachability: reachability)
            var handles: [TransferHandle] = []
            for index in 0..<3 {
                handles.append(try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10?seed=\(index)"))))
            }
            #expect(await manager.transfersWaitingForConnectivity == 3)
            reachability.publish(.reachable(via: .ethernet))
            for handle in handles {
                let events = try await collectEvents(handle)
                #expect(events.last?.name == "completed")
            }
            #expect(await manager.peakRunningTransferCount == 1)
            #expect(server.requests.map(\.target) == (0..<3).map { "/bytes/10?seed=\($0)" })
        }
    }

    @Test func cancellingTheCallerEndsAWaitingTransfer() async throws {
        try await withServerAndManager { server, manager in
            let reachability = NetworkReachability(manualStatus: .unreachable)
            try await manager.setWaitsForConnectivity(true, reachability: reachability)
            let transfer = Task { try await manager.data(from: server.url("/bytes/10")) }
            #expect(await eventually { await manager.transfersWaitingForConnectivity == 1 })
            transfer.cancel()
            let error = await expectNetworkingError { try await transfer.value }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { await manager.activeTransferCount == 0 })
            #expect(await manager.transfersWaitingForConnectivity == 0)
            // Reachable later: the cancelled transfer stays cancelled, nothing is sent.
            reachability.publish(.reachable(via: .ethernet))
            _ = try await manager.data(from: server.url("/bytes/1"))
            #expect(server.stats.requestCount == 1)
        }
    }

    @Test func handlesAndInvalidationEndWaitingTransfers() async throws {
        try await withServerAndManager { server, manager in
            let reachability = NetworkReachability(manualStatus: .unreachable)
            try await manager.setWaitsForConnectivity(true, reachability: reachability)
            let cancelled = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10")))
            let invalidated = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10")))
            cancelled.cancel()
            let cancelError = await expectNetworkingError { try await collectEvents(cancelled) }
            #expect(cancelError?.kind == .cancelled)
            await manager.invalidateAndCancel()
            let invalidError = await expectNetworkingError { try await collectEvents(invalidated) }
            #expect(invalidError?.kind == .sessionInvalidated)
            #expect(server.stats.requestCount == 0)
        }
    }

    @Test func reachableAtTheStartMeansNoWait() async throws {
        try await withServerAndManager { server, manager in
            let reachability = NetworkReachability(manualStatus: .reachable(via: .loopbackOnly))
            try await manager.setWaitsForConnectivity(true, reachability: reachability)
            let (body, _) = try await manager.data(from: server.url("/bytes/5"))
            #expect(body.count == 5)
        }
    }

    @Test func turningItOffOrStoppingTheMonitorStartsWaitingTransfers() async throws {
        try await withServerAndManager { server, manager in
            let first = NetworkReachability(manualStatus: .unreachable)
            try await manager.setWaitsForConnectivity(true, reachability: first)
            let one = Task { try await manager.data(from: server.url("/bytes/7")) }
            #expect(await eventually { await manager.transfersWaitingForConnectivity == 1 })
            try await manager.setWaitsForConnectivity(false)
            #expect(try await one.value.0.count == 7)
            let (waits, current) = await (manager.waitsForConnectivity, manager.reachability)
            #expect(!waits && current == nil)

            let second = NetworkReachability(manualStatus: .unreachable)
            try await manager.setWaitsForConnectivity(true, reachability: second)
            let two = Task { try await manager.data(from: server.url("/bytes/8")) }
            #expect(await eventually { await manager.transfersWaitingForConnectivity == 1 })
            second.stopMonitoring()
            #expect(try await two.value.0.count == 8)
            // A stopped monitor no longer holds transfers back.
            #expect(try await manager.data(from: server.url("/bytes/9")).0.count == 9)
        }
    }
}
