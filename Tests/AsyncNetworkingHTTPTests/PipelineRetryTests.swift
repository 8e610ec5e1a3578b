@testable import AsyncNetworkingTestSupport

@Suite("Pipeline retries against the loopback server")
struct PipelineRetryTests {
    @Test func retryAfterOneSecondIsHonouredOnTheServerClock() async throws {
        try await withPipelineClient(fastRetries: true) { server, client, _, key in
            let reply = try await client.send(.get("pipeline/flaky/\(key)?fail=1&retry-after=1", as: PipelineAttemptReply.self))
            #expect(reply.value.attempt == 2)
            let arrivals = server.pipelineArrivals("flaky", key)
            #expect(arrivals.count == 2)
            if arrivals.count == 2 {
                let gap = pipelineSeconds(from: arrivals[0], to: arrivals[1])
                #expect(gap >= 1.0, "the retry arrived \(gap) s after the 503")
            }
        }
    }

    @Test func aPostIsNotRetriedUnlessItHasAnIdempotencyKey() async throws {
        try await withPipelineClient(fastRetries: true) { server, client, _, key in
            let error = await expectNetworkingError {
                try await client.send(.post("pipeline/flaky/\(key)?fail=1", body: .data(Data("x".utf8), contentType: "text/plain"), as: Data.self))
            }
            #expect(error?.kind == .unacceptableStatusCode(503))
            #expect(server.pipelineArrivals("flaky", key).count == 1)

            let keyed = pipelineKey()
            let reply = try await client.send(
                .post("pipeline/flaky/\(keyed)?fail=1", body: .data(Data("x".utf8), contentType: "text/plain"),
                      headers: ["Idempotency-Key": "k-1"], as: PipelineAttemptReply.self)
            )
            #expect(reply.value.attempt == 2)
            #expect(server.requests.filter { $0.path == "/pipeline/flaky/\(keyed)" }.map(\.bodyLength) == [1, 1])
        }
    }

    @Test func stopsAtMaxAttempts() async throws {
        try await withClient { server, client in
            var client = client
            client.pipeline.retryPolicy = pipelineFastRetries(maxAttempts: 4)
            let key = pipelineKey()
            let error = await expectNetworkingError { try await client.send(.get("pipeline/flaky/\(key)?fail=100&status=502", as: Data.self)) }
            #expect(error?.kind == .unacceptableStatusCode(502))
            #expect(error.map { text($0.body ?? Data()) } == "attempt 4 failed")
            #expect(server.pipelineArrivals("flaky", key).count == 4)
        }
    }

    @Test func transientTransportErrorsAreRetried() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        try await withPipelineClient(recorded: true) { _, client, recorder, _ in
            var client = client
            client.pipeline.retryPolicy = pipelineFastRetries(maxAttempts: 3)
            let error = await expectNetworkingError { try await client.send(.get(refusing.url("/x"), as: Data.self)) }
            #expect(error?.kind == .transport(.cannotConnectToHost))
            #expect(recorder.names.filter { $0 == "attemptFailed" }.count == 3)
            #expect(recorder.names.filter { $0 == "retryScheduled" }.count == 2)
        }
    }

    @Test func theDeadlineCutsAnAttemptInFlight() async throws {
        try await withClient { server, client in
            var client = client
            client.pipeline.retryPolicy = pipelineFastRetries(deadline: .seconds(1))
            let started = ContinuousClock.now
            let error = await expectNetworkingError { try await client.send(.get("delay/\(neverEnding)", as: Data.self)) }
            #expect(error?.kind == .deadlineExceeded)
            #expect(error?.message.contains("the call's deadline (1.0 s, the retry policy's) passed during attempt 1") == true)
            #expect(error?.attemptCount == 1)
            #expect(pipelineSeconds(from: started, to: ContinuousClock.now) >= 1.0)
            #expect(server.requests.filter { $0.path.hasPrefix("/delay/") }.count <= 1)
        }
    }

    @Test func theDeadlineSpansAttempts() async throws {
        try await withClient { server, client in
            var client = client
            // Each failure asks for 1 s; with 2.5 s in all, a fourth attempt (≥ 3 s) is never made.
            client.pipeline.retryPolicy = pipelineFastRetries(maxAttempts: 1000, deadline: .milliseconds(2500))
            let key = pipelineKey()
            let error = await expectNetworkingError { try await client.send(.get("pipeline/flaky/\(key)?fail=1000&retry-after=1", as: Data.self)) }
            let kind = error?.kind
            #expect(kind == .unacceptableStatusCode(503) || kind == .deadlineExceeded)
            let arrivals = server.pipelineArrivals("flaky", key)
            // Attempts arrive ≥ 1 s apart (Retry-After), and no retry may start after 2.5 s (on a
            // starved machine the deadline may even pass before the first arrives).
            #expect(arrivals.count <= 3, "\(arrivals.count) attempts")
        }
    }

    @Test func anExhaustedBudgetStopsRetriesAcrossClientCopies() async throws {
        try await withClient { server, client in
            var client = client
            let budget = RetryBudget(capacity: 2, refillPerSuccess: 0)
            client.pipeline.retryPolicy = pipelineFastRetries(maxAttempts: 10, budget: budget)
            let copy = client
            let first = pipelineKey(), second = pipelineKey()
            _ = await expectNetworkingError { try await client.send(.get("pipeline/flaky/\(first)?fail=100", as: Data.self)) }
            _ = await expectNetworkingError { try await copy.send(.get("pipeline/flaky/\(second)?fail=100", as: Data.self)) }
            #expect(server.pipelineArrivals("flaky", first).count == 3) // 1 + the budget's 2 retries
            #expect(server.pipelineArrivals("flaky", second).count == 1) // nothing left to retry with
            #expect(budget.available == 0)
        }
    }

    @Test func cancellingDuringBackoffEndsAtOnceWithCancelled() async throws {
        try await withPipelineClient(fastRetries: true, recorded: true) { server, client, recorder, key in
            // A 600 s wait is past the 60 s timeout's retry window: a deadline makes room for it.
            var client = client
            client.deadline = .after(.seconds(3600))
            let task = Task { [client] in
                await expectNetworkingError { try await client.send(.get("pipeline/flaky/\(key)?fail=1&retry-after=600", as: Data.self)) }
            }
            #expect(await eventually { recorder.contains("retryScheduled") })
            task.cancel()
            let error = await task.value // within the test's hang deadline, far below the 600 s backoff
            #expect(error?.kind == .cancelled)
            #expect(server.pipelineArrivals("flaky", key).count == 1)
            #expect(recorder.names.last == "completed")
        }
    }

    @Test func monitorsSeeEveryStepInOrder() async throws {
        try await withPipelineClient(fastRetries: true, recorded: true) { _, client, recorder, key in
            _ = try await client.send(.get("pipeline/flaky/\(key)?fail=1&retry-after=0", as: PipelineAttemptReply.self))
            #expect(recorder.names == [
                "adapted", "started", "response", "retryScheduled",
                "adapted", "started", "response", "completed",
            ])
            guard case .completed(_, let attempts, .success(let response), let metrics) = recorder.all.last else {
                Issue.record("no successful completion")
                return
            }
            #expect(attempts == 2 && response.statusCode == 200 && metrics != nil)
            #expect(Set(recorder.all.map(\.requestID)).count == 1)

            _ = try await client.send(.get("redirect/2", as: Data.self))
            #expect(recorder.names.suffix(5) == ["adapted", "started", "redirected", "response", "completed"])
        }
    }
}
