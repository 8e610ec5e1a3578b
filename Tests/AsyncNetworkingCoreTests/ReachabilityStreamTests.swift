@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// `NetworkReachability`'s public behaviour: the current status at once, each change exactly
/// once, streams that end, waiting, typed errors.
struct ReachabilityStreamTests {
    @Test func aStreamStartsWithTheCurrentStatusAndCoalescesDuplicates() async throws {
        let reachability = NetworkReachability(manualStatus: .unreachable)
        let recorder = StatusRecorder(reachability)
        #expect(await recorder.waitForCount(1) == [.unreachable])
        for status in [ReachabilityStatus.unreachable, .reachable(via: .wifi), .reachable(via: .wifi),
                       .reachable(via: .cellular), .reachable(via: .cellular), .unreachable] {
            reachability.publish(status)
        }
        let expected: [ReachabilityStatus] = [.unreachable, .reachable(via: .wifi), .reachable(via: .cellular), .unreachable]
        #expect(await recorder.waitForCount(4) == expected)
        // A later subscriber starts from the current status.
        var iterator = reachability.statuses.makeAsyncIterator()
        #expect(await iterator.next() == .unreachable)
    }

    @Test func theConveniencePropertiesFollowTheStatus() {
        let reachability = NetworkReachability(manualStatus: .reachable(via: .cellular))
        #expect(reachability.isReachable && reachability.isReachableViaWWAN && !reachability.isReachableViaWiFi && !reachability.isReachableViaEthernet)
        reachability.publish(.reachable(via: .wifi))
        #expect(reachability.isReachableViaWiFi && !reachability.isReachableViaWWAN)
        reachability.publish(.unreachable)
        #expect(!reachability.isReachable)
        #expect(ReachabilityStatus.reachable(via: .loopbackOnly).description == "reachable(via: loopbackOnly)")
        #expect(ReachabilityStatus.unreachable.interface == nil && ReachabilityStatus.reachable(via: .other).interface == .other)
    }

    @Test func stoppingFinishesEveryStream() async throws {
        try await withDeadline {
            let reachability = NetworkReachability(manualStatus: .unreachable)
            let stream = reachability.statuses
            reachability.stopMonitoring()
            var seen: [ReachabilityStatus] = []
            for await status in stream { seen.append(status) }
            #expect(seen == [.unreachable])
            #expect(!reachability.isMonitoring)
            reachability.publish(.reachable(via: .ethernet)) // ignored once stopped
            #expect(reachability.status == .unreachable)
            var late: [ReachabilityStatus] = []
            for await status in reachability.statuses { late.append(status) }
            #expect(late == [.unreachable]) // the last status, then the end
        }
    }

    @Test func releasingTheLastReferenceFinishesStreams() async throws {
        #if os(Linux)
        try await withDeadline {
            var reachability: NetworkReachability? = try NetworkReachability()
            let stream = reachability!.statuses
            reachability = nil
            var count = 0
            for await _ in stream { count += 1 }
            #expect(count >= 1)
        }
        #endif
    }

    @Test func waitUntilReachableResumesOnAChangeAndFollowsCancellation() async throws {
        try await withDeadline {
            let reachability = NetworkReachability(manualStatus: .unreachable)
            let waiter = Task { try await reachability.waitUntilReachable() }
            let waiting = Task { try await reachability.waitUntilReachable() }
            waiting.cancel()
            let error = await expectNetworkingError { try await waiting.value }
            #expect(error?.kind == .cancelled)
            reachability.publish(.reachable(via: .ethernet))
            try await waiter.value
            try await reachability.waitUntilReachable() // reachable already: returns at once
            reachability.publish(.unreachable)
            let stopped = Task { try await reachability.waitUntilReachable() }
            reachability.stopMonitoring()
            let stopError = await expectNetworkingError { try await stopped.value }
            #expect(stopError?.kind == .reachabilityUnavailable)
        }
    }

    @Test func anEmptyHostIsATypedError() {
        #expect(throws: NetworkingError.self) { try NetworkReachability(host: "") }
        #expect(throws: NetworkingError.self) { try NetworkReachability.forHost("[]") }
    }

    @Test func theSharedInstanceIsOneAndWatchesThisMachine() throws {
        #if os(Linux)
        let shared = try NetworkReachability.shared
        #expect(try NetworkReachability.shared === shared)
        #expect(shared.host == nil && shared.isMonitoring)
        // This machine's loopback answers whatever the rest of the network does.
        let loopback = try NetworkReachability(host: "127.0.0.1")
        #expect(loopback.status == .reachable(via: .loopbackOnly))
        #endif
    }
}
