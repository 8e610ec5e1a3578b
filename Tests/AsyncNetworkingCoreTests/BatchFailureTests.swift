@testable import AsyncNetworkingTestSupport

private struct MemberFailed: Error, Equatable {
    let index: Int
}

@Suite("Batch: failure policies")
struct BatchFailureTests {
    @Test func failFastThrowsTheFirstErrorAndCancelsTheRest() async throws {
        // The delays never end: waiting for them instead of cancelling would fail the test.
        try await withServerAndManager { server, manager in
            var requests = BatchFixtures.delayRequests(server, [neverEnding, neverEnding, neverEnding])
            requests.append(URLRequest(url: server.url("/fault/reset?i=3")))
            requests += (4..<8).map { URLRequest(url: server.url("/delay/\(neverEnding)?i=\($0)")) }
            let error = await expectNetworkingError { try await manager.data(for: requests, width: 4) }
            #expect(error?.urlErrorCode != nil, "a transport error: \(String(describing: error))")
            #expect(error?.request?.url?.path == "/fault/reset")
            #expect(await manager.activeTransferCount == 0, "running members were cancelled and awaited")
            // Members past the width never started; those that reached the server were aborted.
            #expect(await eventually {
                let sent = BatchFixtures.loggedTags(server, pathPrefix: "/delay/")
                return server.stats.clientAborts == sent.count
            })
            let sent = BatchFixtures.loggedTags(server, pathPrefix: "/delay/")
            #expect(Set(sent).isSubset(of: ["0", "1", "2"]))
            #expect(server.stats.completedResponses == 0)
        }
    }

    @Test func failFastGenericBatchThrowsTheMembersErrorAfterCancellingRunningTransfers() async throws {
        try await withServerAndManager { server, manager in
            server.resetStats()
            let error = await #expect(throws: MemberFailed.self) {
                _ = try await manager.batch(0..<10, width: 4) { manager, i in
                    if i == 3 {
                        // Fail once the three others are in flight at the server.
                        while server.stats.inFlight < 3 { try await Task.sleep(for: .milliseconds(5)) }
                        throw MemberFailed(index: i)
                    }
                    return try await manager.data(from: server.url("/delay/\(neverEnding)?i=\(i)")).0
                }
            }
            #expect(error == MemberFailed(index: 3))
            #expect(await manager.activeTransferCount == 0)
            #expect(await eventually { server.stats.clientAborts == 3 }, "the server saw the three running transfers go")
            #expect(server.stats.requestCount == 3, "members 4...9 never started")
        }
    }

    @Test func aRealFailureWinsOverTheCancellationsOfACancelledFailFastBatch() async throws {
        try await withServerAndManager { _, manager in
            let gate = Gate()
            let task = Task {
                try await manager.batch(0..<2, width: 2) { _, i in
                    await gate.open(10 + i) // started
                    if i == 0 {
                        // Ends with CancellationError as soon as the caller is cancelled.
                        do { try await Task.sleep(for: .seconds(3600)) } catch {
                            await gate.open(0)
                            throw error
                        }
                        return i
                    }
                    // Fails for a reason of its own, once member 0 has ended with its cancellation.
                    await gate.wait(0)
                    throw MemberFailed(index: 1)
                }
            }
            await gate.wait(10)
            await gate.wait(11)
            task.cancel()
            await #expect(throws: MemberFailed(index: 1), "the member's own failure, not the cancellation's echo") {
                try await task.value
            }
        }
    }

    @Test func settleAllReturnsEveryError() async throws {
        try await withServerAndManager { server, manager in
            let (ok0, body0) = BatchFixtures.seeded(server, size: 1000, seed: 0)
            let (ok3, body3) = BatchFixtures.seeded(server, size: 3000, seed: 3)
            let requests = [
                ok0,
                BatchFixtures.unsupportedScheme,
                URLRequest(url: server.url("/fault/reset")),
                ok3,
                URLRequest(url: server.url("/fault/close")),
                URLRequest(url: server.url("/status/500")),
            ]
            let results = await manager.settledData(for: requests, width: 3)
            #expect(results.count == 6)
            #expect((try? results[0].get())?.0 == body0)
            #expect(throws: NetworkingError.self) { try results[1].get() }
            if case .failure(let error) = results[1] { #expect(error.kind == .unsupportedScheme("ftp")) }
            if case .failure(let error) = results[2] {
                #expect(error.urlErrorCode != nil)
                #expect(error.request?.url?.path == "/fault/reset")
            } else {
                Issue.record("a reset connection is an error")
            }
            #expect((try? results[3].get())?.0 == body3)
            if case .failure(let error) = results[4] {
                #expect(error.urlErrorCode != nil)
            } else {
                Issue.record("a connection closed without a response is an error")
            }
            #expect((try? results[5].get())?.1.statusCode == 500, "any status code is a response, not an error")
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func settledGenericBatchReturnsEveryOutcomeInInputOrder() async throws {
        try await withServerAndManager { server, manager in
            let results = await manager.settledBatch(0..<8, width: 3) { manager, i in
                if i % 3 == 1 { throw MemberFailed(index: i) }
                return try await manager.data(from: server.url("/delay/\((8 - i) * 10)")).0
            }
            #expect(results.count == 8)
            for (i, result) in results.enumerated() {
                switch result {
                case .success(let body): #expect(i % 3 != 1 && BatchFixtures.text(body) == "delayed \((8 - i) * 10)")
                case .failure(let error): #expect((error as? MemberFailed) == MemberFailed(index: i))
                }
            }
        }
    }
}
