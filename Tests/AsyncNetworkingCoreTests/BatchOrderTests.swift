@testable import AsyncNetworkingTestSupport

/// Records the order members finish in.
private actor FinishOrder {
    private(set) var indices: [Int] = []
    func append(_ index: Int) { indices.append(index) }
}

@Suite("Batch: order, width and scale")
struct BatchOrderTests {
    @Test func resultsFollowInputOrderWhenCompletionOrderDiffers() async throws {
        try await withServerAndManager { server, manager in
            // Members finish in reverse order: member i proceeds only once member i + 1 has ended.
            let gate = Gate()
            let finished = FinishOrder()
            await gate.open(5)
            let results = try await manager.batch(0..<6, width: 6) { manager, i in
                await gate.wait(i)
                let result = try await manager.data(from: server.url("/bytes/\(10 + i)?seed=\(i)"))
                await finished.append(i)
                await gate.open(i - 1)
                return result
            }
            #expect(await finished.indices == [5, 4, 3, 2, 1, 0])
            #expect(results.map(\.0) == (0..<6).map { SeededBytes.data(seed: UInt64($0), offset: 0, count: 10 + $0) })
        }
    }

    @Test func dataBatchReturnsBodiesInInputOrder() async throws {
        try await withServerAndManager { server, manager in
            let delays = [400, 0, 200, 50]
            let results = try await manager.data(for: BatchFixtures.delayRequests(server, delays), width: 4)
            #expect(results.map { BatchFixtures.text($0.0) } == delays.map { "delayed \($0)" })
            #expect(results.allSatisfy { $0.1.statusCode == 200 })
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func inFlightNeverExceedsTheWidth() async throws {
        try await withServerAndManager { server, manager in
            server.resetStats()
            // The first wave lasts long enough that the three are running together however slowly
            // a busy machine starts them.
            let requests = BatchFixtures.delayRequests(server, Array(repeating: 1000, count: 3) + Array(repeating: 40, count: 12))
            let results = try await manager.data(for: requests, width: 3)
            #expect(results.count == 15)
            #expect(server.stats.maxInFlight <= 3, "measured at the server")
            #expect(server.stats.maxInFlight >= 1)
            #expect(await manager.peakRunningTransferCount == 3, "measured by the manager: the width is reached, never passed")
        }
    }

    @Test func defaultWidthIsEight() async throws {
        try await withServerAndManager { server, manager in
            let requests = BatchFixtures.delayRequests(server, Array(repeating: 1000, count: 8) + Array(repeating: 30, count: 12))
            let results = await manager.settledData(for: requests)
            #expect(results.count == 20)
            #expect(await manager.peakRunningTransferCount == SessionManager.defaultBatchWidth)
            #expect(SessionManager.defaultBatchWidth == 8)
        }
    }

    @Test func widthBelowOneRunsOneAtATime() async throws {
        try await withServerAndManager { server, manager in
            server.resetStats()
            let results = try await manager.data(for: BatchFixtures.delayRequests(server, [20, 20, 20, 20]), width: 0)
            #expect(results.count == 4)
            #expect(server.stats.maxInFlight == 1)
            #expect(await manager.peakRunningTransferCount == 1)
        }
    }

    @Test func genericBatchWidthBoundsItsMembers() async throws {
        try await withServerAndManager { server, manager in
            server.resetStats()
            // Each member is a chain of two requests; at most two members (two requests) at once.
            let outputs = try await manager.batch(0..<6, width: 2) { manager, i in
                let first = try await manager.data(from: server.url("/delay/20?i=\(i)")).0
                let second = try await manager.data(from: server.url("/bytes/\(first.count)?seed=\(i)")).0
                return second
            }
            #expect(outputs.count == 6)
            for (i, body) in outputs.enumerated() {
                let expectedCount = "delayed 20".utf8.count
                #expect(body == SeededBytes.data(seed: UInt64(i), offset: 0, count: expectedCount))
            }
            #expect(server.stats.maxInFlight <= 2)
            #expect(await manager.peakRunningTransferCount <= 2)
        }
    }

    @Test func aChainBuildsABatchFromAResponse() async throws {
        try await withServerAndManager { server, manager in
            // Request A's body decides the sizes of the batch that follows it (the README's batch example).
            let (index, _) = try await manager.data(from: server.url("/bytes/5?seed=42"))
            let sizes = index.map { Int($0) % 50 + 1 }
            let requests = sizes.enumerated().map { i, size in URLRequest(url: server.url("/bytes/\(size)?seed=\(i)")) }
            let bodies = try await manager.data(for: requests, width: 2)
            #expect(bodies.map(\.0) == sizes.enumerated().map { i, size in SeededBytes.data(seed: UInt64(i), offset: 0, count: size) })
        }
    }

    @Test func emptyBatchesReturnAtOnceAndSendNothing() async throws {
        try await withServerAndManager { server, manager in
            let none: [URLRequest] = []
            let noData = try await manager.data(for: none)
            #expect(noData.isEmpty)
            #expect(await manager.settledData(for: none).isEmpty)
            let noOutputs = try await manager.batch([Int]()) { _, i in i }
            #expect(noOutputs.isEmpty)
            var count = 0
            for await _ in manager.completions(for: none) { count += 1 }
            #expect(count == 0)
            #expect(server.stats.requestCount == 0)
        }
    }

    @Test func thousandSmallRequestsCompleteWithEveryBodyCorrect() async throws {
        try await withServerAndManager(deadline: 5 * hangDeadline) { server, manager in
            let members = (0..<1000).map { BatchFixtures.seeded(server, size: $0 % 97 + 1, seed: $0) }
            let results = try await manager.data(for: members.map(\.0))
            #expect(results.count == 1000)
            var wrong = 0
            for (result, member) in zip(results, members) where result.0 != member.1 || result.1.statusCode != 200 {
                wrong += 1
            }
            #expect(wrong == 0)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func thousandSmallRequestsStreamedAsTheyFinishAreAllCorrect() async throws {
        try await withServerAndManager(deadline: 5 * hangDeadline) { server, manager in
            let members = (0..<1000).map { BatchFixtures.seeded(server, size: $0 % 89 + 1, seed: 5000 + $0) }
            var seen = Set<Int>()
            var wrong = 0
            for await (index, result) in manager.completions(for: members.map(\.0), width: 8) {
                seen.insert(index)
                if (try? result.get().0) != members[index].1 { wrong += 1 }
            }
            #expect(seen == Set(0..<1000))
            #expect(wrong == 0)
            #expect(await manager.activeTransferCount == 0)
        }
    }
}
