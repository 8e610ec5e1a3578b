@testable import AsyncNetworkingTestSupport

private struct Odd: Error {}

@Suite("Batch: completions as they finish")
struct BatchCompletionsTests {
    @Test func completionsArriveInCompletionOrderWithTheirIndex() async throws {
        try await withServerAndManager { server, manager in
            // The test lets one member proceed at a time, in this order, as the previous one arrives.
            let release = [2, 0, 3, 1]
            let gate = Gate()
            await gate.open(release[0])
            var order: [Int] = []
            for await (index, result) in manager.batchCompletions(0..<4, width: 4, operation: { manager, i in
                await gate.wait(i)
                return try await manager.data(from: server.url("/bytes/\(20 + i)?seed=\(i)")).0
            }) {
                order.append(index)
                #expect((try? result.get()) == SeededBytes.data(seed: UInt64(index), offset: 0, count: 20 + index))
                if order.count < release.count { await gate.open(release[order.count]) }
            }
            #expect(order == release)
        }
    }

    @Test func requestCompletionsCarryTheIndexOfTheirRequest() async throws {
        try await withServerAndManager { server, manager in
            // Member 0 never ends, so the other three can only arrive before it: completion order,
            // not input order, whatever the scheduler does.
            let delays = [neverEnding, 0, 100, 50]
            var order: [Int] = []
            for await (index, result) in manager.completions(for: BatchFixtures.delayRequests(server, delays), width: 4) {
                order.append(index)
                #expect((try? result.get()).map { BatchFixtures.text($0.0) } == "delayed \(delays[index])")
                if order.count == 3 { break }
            }
            #expect(order.sorted() == [1, 2, 3], "completion order, not input order")
            #expect(await eventually { await manager.activeTransferCount == 0 }, "dropping the sequence cancelled member 0")
        }
    }

    @Test func droppingTheSequenceCancelsTheMembers() async throws {
        try await withServerAndManager { server, manager in
            let requests = BatchFixtures.delayRequests(server, [0] + Array(repeating: neverEnding, count: 5))
            do {
                for await (index, _) in manager.completions(for: requests, width: 4) {
                    // Member 0 ended, so member 4 has started in its slot.
                    #expect(index == 0)
                    #expect(await eventually { server.stats.inFlight == 4 })
                    break
                }
            } // the sequence and its iterator are gone here
            #expect(await eventually { await manager.activeTransferCount == 0 })
            #expect(await eventually { server.stats.clientAborts == 4 })
            #expect(server.stats.requestCount == 5, "the sixth request was never sent")
        }
    }

    @Test func cancellingTheConsumerCancelsTheMembersAndEndsTheSequence() async throws {
        try await withServerAndManager { server, manager in
            let requests = BatchFixtures.delayRequests(server, Array(repeating: neverEnding, count: 10))
            let consumer = Task {
                var indices: [Int] = []
                for await (index, _) in manager.completions(for: requests, width: 3) { indices.append(index) }
                return indices
            }
            #expect(await eventually { server.stats.inFlight == 3 })
            consumer.cancel()
            let indices = await consumer.value
            #expect(indices.isEmpty)
            #expect(await manager.activeTransferCount == 0, "the sequence ends only once every member has ended")
            #expect(await eventually { server.stats.clientAborts == 3 })
            #expect(server.stats.requestCount == 3)
        }
    }

    @Test func failFastEndsTheSequenceAfterTheFirstFailure() async throws {
        try await withServerAndManager { server, manager in
            var requests = BatchFixtures.delayRequests(server, [neverEnding])
            requests.append(BatchFixtures.unsupportedScheme)
            requests += (2..<5).map { URLRequest(url: server.url("/delay/0?i=\($0)")) }
            var delivered: [(Int, NetworkingError.Kind?)] = []
            for await (index, result) in manager.completions(for: requests, width: 2, failurePolicy: .failFast) {
                if case .failure(let error) = result { delivered.append((index, error.kind)) } else { delivered.append((index, nil)) }
            }
            #expect(delivered.count == 1)
            #expect(delivered.first?.0 == 1)
            #expect(delivered.first?.1 == .unsupportedScheme("ftp"))
            #expect(await manager.activeTransferCount == 0)
            #expect(BatchFixtures.loggedTags(server, pathPrefix: "/delay/").allSatisfy { $0 == "0" }, "later members never started")
        }
    }

    @Test func theBatchDoesNotRunAheadOfASlowReader() async throws {
        try await withServerAndManager { server, manager in
            let members = (0..<12).map { BatchFixtures.seeded(server, size: 10, seed: $0) }
            let completions = manager.completions(for: members.map(\.0), width: 2)
            // Nobody reads yet: two run, then one waits in the sequence and at most two more finish.
            // Once those four have ended the batch is stuck until someone reads; a short look
            // confirms no fifth was sent (a wrong pass is possible on a slow machine, a wrong
            // failure is not).
            #expect(await eventually { server.stats.completedResponses >= 4 })
            #expect(await eventually { await manager.activeTransferCount == 0 })
            try await Task.sleep(for: .milliseconds(300))
            #expect(server.stats.requestCount == 4)
            var seen: [Int: Data] = [:]
            for await (index, result) in completions { seen[index] = try result.get().0 }
            #expect(seen.count == 12)
            for (index, body) in seen { #expect(body == members[index].1) }
            #expect(server.stats.requestCount == 12)
        }
    }

    @Test func genericCompletionsDeliverEveryOutcome() async throws {
        try await withServerAndManager { server, manager in
            var successes = 0
            var failures = 0
            for await (index, result) in manager.batchCompletions(0..<10, width: 4, operation: { manager, i in
                if i % 2 == 1 { throw Odd() }
                return try await manager.data(from: server.url("/bytes/\(i + 1)?seed=\(i)")).0
            }) {
                switch result {
                case .success(let body):
                    successes += 1
                    #expect(body == SeededBytes.data(seed: UInt64(index), offset: 0, count: index + 1))
                case .failure(let error):
                    failures += 1
                    #expect(index % 2 == 1 && error is Odd)
                }
            }
            #expect(successes == 5 && failures == 5)
        }
    }

    @Test func completionsReportAggregateProgress() async throws {
        try await withServerAndManager { server, manager in
            let members = (0..<4).map { BatchFixtures.seeded(server, size: 50_000, seed: $0) }
            let (progress, reporter) = BatchProgress.makeStream()
            var count = 0
            for await (_, result) in manager.completions(for: members.map(\.0), width: 2, progress: reporter) {
                _ = try result.get()
                count += 1
            }
            let last = await collectProgress(progress).last
            #expect(count == 4)
            #expect(last?.isFinished == true)
            #expect(last?.download == TransferProgress(completedBytes: 200_000, expectedBytes: 200_000))
        }
    }
}
