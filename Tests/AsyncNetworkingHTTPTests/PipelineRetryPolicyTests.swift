@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingHTTP

@Suite("Pipeline retry policy (pure)")
struct PipelineRetryPolicyTests {
    static let start = ContinuousClock.now

    func failure(
        _ method: HTTPMethod = .get, status: Int? = 503, transport: URLError.Code? = nil,
        headers: [String: String] = [:], requestHeaders: [String: String] = [:],
        attempt: Int = 1, after elapsed: Duration = .zero, date: Date = Date(timeIntervalSince1970: 1_700_000_000),
        replayable: Bool = true
    ) -> RetryContext {
        var request = makeRequest(method)
        for (name, value) in requestHeaders { request.setValue(value, forHTTPHeaderField: name) }
        let response = status.map {
            HTTPURLResponse(url: request.url!, statusCode: $0, httpVersion: "HTTP/1.1", headerFields: headers)!
        }
        let error: NetworkingError = if let transport {
            NetworkingError(.transport(transport), request: request)
        } else {
            NetworkingError(.unacceptableStatusCode(status ?? 0), request: request, response: response)
        }
        return RetryContext(
            request: request, error: error, attemptCount: attempt, startedAt: Self.start,
            failedAt: Self.start + elapsed, failedAtDate: date, isBodyReplayable: replayable
        )
    }

    func decide(_ policy: DefaultRetryPolicy, _ context: RetryContext, seed: UInt64 = 1) -> RetryDecision {
        var generator = PipelineSeededGenerator(state: seed)
        return policy.decision(for: context, using: &generator)
    }

    @Test func retriesTransientStatusesOfIdempotentMethods() {
        let policy = DefaultRetryPolicy()
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(decide(policy, failure(status: status)) != .doNotRetry, "status \(status)")
        }
        for status in [400, 401, 403, 404, 409, 501] {
            #expect(decide(policy, failure(status: status)) == .doNotRetry, "status \(status)")
        }
        for method: HTTPMethod in [.get, .head, .put, .delete, .options] {
            #expect(decide(policy, failure(method)) != .doNotRetry, "\(method)")
        }
    }

    @Test func nonIdempotentMethodsOnlyWithAnIdempotencyKey() {
        let policy = DefaultRetryPolicy()
        #expect(decide(policy, failure(.post)) == .doNotRetry)
        #expect(decide(policy, failure(.patch)) == .doNotRetry)
        #expect(decide(policy, failure(.post, requestHeaders: ["Idempotency-Key": "k1"])) != .doNotRetry)
    }

    @Test func aBodyThatCannotBeReplayedIsNotRetried() {
        #expect(decide(DefaultRetryPolicy(), failure(.put, replayable: false)) == .doNotRetry)
    }

    @Test func transientTransportErrorsAreRetriedOthersNot() {
        let policy = DefaultRetryPolicy()
        for code: URLError.Code in [.timedOut, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed] {
            #expect(decide(policy, failure(status: nil, transport: code)) != .doNotRetry, "\(code)")
        }
        for code: URLError.Code in [.cancelled, .badURL, .serverCertificateUntrusted, .secureConnectionFailed] {
            #expect(decide(policy, failure(status: nil, transport: code)) == .doNotRetry, "\(code)")
        }
    }

    @Test func stopsAtMaxAttempts() {
        let policy = DefaultRetryPolicy(maxAttempts: 3)
        #expect(decide(policy, failure(attempt: 2)) != .doNotRetry)
        #expect(decide(policy, failure(attempt: 3)) == .doNotRetry)
        #expect(decide(DefaultRetryPolicy(maxAttempts: 1), failure(attempt: 1)) == .doNotRetry)
    }

    @Test func backoffIsFullJitterUnderAnExponentialCap() {
        let policy = DefaultRetryPolicy(baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        var generator = PipelineSeededGenerator(state: 42)
        for attempt in 1...8 {
            let cap = min(1.0, 0.1 * pow(2, Double(attempt - 1)))
            var seen: [Double] = []
            for _ in 0..<200 {
                let delay = DefaultRetryPolicy.seconds(policy.backoff(afterAttempt: attempt, using: &generator))
                #expect(delay >= 0 && delay <= cap + 0.001, "attempt \(attempt): \(delay) > \(cap)")
                seen.append(delay)
            }
            // Full jitter spreads over the whole range, not around the cap.
            #expect(seen.min()! < cap * 0.2 && seen.max()! > cap * 0.8, "attempt \(attempt)")
        }
    }

    @Test func retryAfterSecondsAndHTTPDateReplaceTheBackoff() {
        let policy = DefaultRetryPolicy()
        #expect(decide(policy, failure(headers: ["Retry-After": "7"])) == .retry(after: .seconds(7)))
        let now = Date(timeIntervalSince1970: 1_700_000_000) // Tue, 14 Nov 2023 22:13:20 GMT
        #expect(decide(policy, failure(headers: ["Retry-After": "Tue, 14 Nov 2023 22:13:32 GMT"], date: now)) == .retry(after: .seconds(12)))
        // A date already past means at once.
        #expect(decide(policy, failure(headers: ["Retry-After": "Tue, 14 Nov 2023 22:00:00 GMT"], date: now)) == .retry(after: .zero))
        // Longer than maxDelay: the failure is returned rather than waited for.
        #expect(decide(policy, failure(headers: ["Retry-After": "3600"])) == .doNotRetry)
        // Ignored when told to.
        var ignoring = policy
        ignoring.honorsRetryAfter = false
        ignoring.maxDelay = .seconds(1)
        guard case .retry(let delay) = decide(ignoring, failure(headers: ["Retry-After": "7"])) else {
            Issue.record("expected a retry")
            return
        }
        #expect(delay <= .seconds(1))
    }

    @Test func retryAfterParsesEveryHTTPDateForm() {
        let expected = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(RetryAfter.httpDate("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(RetryAfter.httpDate("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(RetryAfter.httpDate("Sun Nov  6 08:49:37 1994") == expected)
        #expect(RetryAfter.delay("soon", now: expected) == nil)
        #expect(RetryAfter.delay("-5", now: expected) == nil)
        #expect(RetryAfter.delay(" 3 ", now: expected) == .seconds(3))
        #expect(RetryAfter.delay(nil, now: expected) == nil)
    }

    @Test func noRetryThatWouldEndAfterTheDeadline() {
        let policy = DefaultRetryPolicy(deadline: .seconds(10))
        #expect(decide(policy, failure(headers: ["Retry-After": "3"], after: .seconds(6))) == .retry(after: .seconds(3)))
        #expect(decide(policy, failure(headers: ["Retry-After": "3"], after: .seconds(7))) == .doNotRetry)
        #expect(decide(policy, failure(after: .seconds(11))) == .doNotRetry)
    }

    @Test func budgetIsSharedAndRefilledBySuccesses() async {
        let budget = RetryBudget(capacity: 2, refillPerSuccess: 0.5)
        let policy = DefaultRetryPolicy(budget: budget)
        let copy = policy // shares the budget
        #expect(await policy.decide(failure()) != .doNotRetry)
        #expect(await copy.decide(failure()) != .doNotRetry)
        #expect(await policy.decide(failure()) == .doNotRetry)
        #expect(budget.available == 0)
        copy.requestSucceeded()
        #expect(await policy.decide(failure()) == .doNotRetry) // half a token is not a retry
        policy.requestSucceeded()
        #expect(await copy.decide(failure()) != .doNotRetry)
        for _ in 0..<100 { policy.requestSucceeded() }
        #expect(budget.available == 2) // never above capacity
        // A refusal for other reasons takes no token.
        #expect(await policy.decide(failure(.post)) == .doNotRetry)
        #expect(budget.available == 2)
    }
}
