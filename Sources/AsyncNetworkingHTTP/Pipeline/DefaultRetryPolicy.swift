import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The usual retry policy: transient failures of requests that are safe to repeat, with
/// exponential backoff and full jitter, `Retry-After`, a maximum attempt count, an overall
/// deadline and a shared ``RetryBudget``.
///
/// A failure is retried when all of these hold, checked in this order:
/// 1. fewer than ``maxAttempts`` attempts were made;
/// 2. the method is idempotent (``retryableMethods``), or the request has an `Idempotency-Key`
///    header; and its body, if any, can be replayed;
/// 3. the failure is a status in ``retryableStatusCodes`` or a transport error in
///    ``retryableTransportErrors``;
/// 4. the delay — the response's `Retry-After` (seconds or HTTP date) when
///    ``honorsRetryAfter`` and present, else a random duration between zero and
///    `min(maxDelay, baseDelay × 2^(attempts − 1))` ("full jitter") — is at most ``maxDelay``
///    (a longer `Retry-After` is not waited for: the failure is returned) and ends before the
///    ``deadline`` and the call's retry limit (``RetryContext/deadline``);
/// 5. the ``budget`` (when there is one) has a token left.
///
/// **Timeouts.** A timed-out attempt (``NetworkingError/Kind/transport(_:)`` `.timedOut`) is in
/// ``retryableTransportErrors``, but it is retried only within a total deadline the caller set
/// (``HTTPClient/deadline``, ``Request/deadline(_:)``, or this policy's ``deadline``). Without
/// one, the request's `timeoutInterval` is the window retries must start in, counted from the
/// call's start: the timeout already used it, so a client with `timeoutInterval = 2` facing a
/// silent server fails after one timeout (about 2 s, ``NetworkingError/attemptCount`` 1), not
/// three — what URLSession, AFNetworking and AsyncHTTPClient (which do not retry) and Alamofire
/// (which retries only with a policy you add) users expect of a timeout they set. Quick failures
/// (a `503`, a refused connection) are retried while the window lasts; the final error says how
/// many attempts were made.
public struct DefaultRetryPolicy: RetryPolicy {
    /// The most attempts, the first included. Default 3.
    public var maxAttempts: Int
    /// Methods retried without an `Idempotency-Key`. Default: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
    public var retryableMethods: Set<HTTPMethod>
    /// Statuses retried. Default 408, 429, 500, 502, 503, 504.
    public var retryableStatusCodes: Set<Int>
    /// Transport errors retried. Default: timed out, cannot connect, cannot find host, DNS lookup
    /// failed, connection lost, not connected, bad server response (an empty reply), cannot load.
    public var retryableTransportErrors: Set<URLError.Code>
    /// The first backoff's upper bound. Default 0.5 s.
    public var baseDelay: Duration
    /// The longest wait, backoff or `Retry-After`. Default 30 s.
    public var maxDelay: Duration
    /// Whether `Retry-After` replaces the backoff. Default `true`.
    public var honorsRetryAfter: Bool
    /// The overall deadline across attempts (see ``RetryPolicy/deadline``). Default `nil`.
    public var deadline: Duration?
    /// The shared retry allowance; `nil` for none. Default: a new ``RetryBudget`` (shared by every
    /// copy of this policy, and so of a client that holds it).
    public var budget: RetryBudget?

    /// The default retried methods.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, "TRACE"]
    /// The default retried statuses.
    public static let transientStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The default retried transport errors.
    public static let transientTransportErrors: Set<URLError.Code> = [
        .timedOut, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .networkConnectionLost,
        .notConnectedToInternet, .badServerResponse, .cannotLoadFromNetwork,
    ]

    /// Creates a policy; every argument has the default described on its property.
    public init(
        maxAttempts: Int = 3,
        retryableMethods: Set<HTTPMethod> = DefaultRetryPolicy.idempotentMethods,
        retryableStatusCodes: Set<Int> = DefaultRetryPolicy.transientStatusCodes,
        retryableTransportErrors: Set<URLError.Code> = DefaultRetryPolicy.transientTransportErrors,
        baseDelay: Duration = .milliseconds(500),
        maxDelay: Duration = .seconds(30),
        honorsRetryAfter: Bool = true,
        deadline: Duration? = nil,
        budget: RetryBudget? = RetryBudget()
    ) {
        self.maxAttempts = maxAttempts
        self.retryableMethods = retryableMethods
        self.retryableStatusCodes = retryableStatusCodes
        self.retryableTransportErrors = retryableTransportErrors
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.honorsRetryAfter = honorsRetryAfter
        self.deadline = deadline
        self.budget = budget
    }

    /// Decides with the system's random numbers and takes a budget token when retrying.
    public func decide(_ failure: RetryContext) async -> RetryDecision {
        var generator = SystemRandomNumberGenerator()
        let decision = decision(for: failure, using: &generator)
        guard case .retry = decision else { return decision }
        if let budget, !budget.withdraw() { return .doNotRetry }
        return decision
    }

    /// Refills the budget.
    public func requestSucceeded() {
        budget?.deposit()
    }

    /// Steps 1 to 4 of the overview, without touching the budget (pure, for tests).
    public func decision(for failure: RetryContext, using generator: inout some RandomNumberGenerator) -> RetryDecision {
        guard failure.attemptCount < maxAttempts, isRepeatable(failure), isTransient(failure.error) else {
            return .doNotRetry
        }
        let delay: Duration
        if honorsRetryAfter,
           let asked = RetryAfter.delay(failure.response?.value(forHTTPHeaderField: "Retry-After"), now: failure.failedAtDate) {
            guard asked <= maxDelay else { return .doNotRetry }
            delay = asked
        } else {
            delay = backoff(afterAttempt: failure.attemptCount, using: &generator)
        }
        if let deadline, failure.failedAt + delay >= failure.startedAt + min(deadline, SafeTime.ceiling) { return .doNotRetry }
        if let limit = failure.deadline, failure.failedAt + delay >= limit { return .doNotRetry }
        return .retry(after: delay)
    }

    /// Full jitter: uniform in `0...min(maxDelay, baseDelay × 2^(attempt − 1))`.
    public func backoff(afterAttempt attempt: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let cap = min(Self.seconds(maxDelay), SafeTime.ceilingSeconds)
        let ceiling = min(cap, Self.seconds(baseDelay) * pow(2, Double(min(max(0, attempt - 1), 1000))))
        guard ceiling > 0, ceiling.isFinite else { return .zero } // 2^1000 is finite, so a zero base stays zero
        return SafeTime.delay(seconds: Double.random(in: 0...ceiling, using: &generator), maximum: maxDelay)
    }

    private func isRepeatable(_ failure: RetryContext) -> Bool {
        guard failure.isBodyReplayable else { return false }
        let method = HTTPMethod((failure.request.httpMethod ?? "GET").uppercased())
        return retryableMethods.contains(method) || failure.request.value(forHTTPHeaderField: "Idempotency-Key") != nil
    }

    private func isTransient(_ error: NetworkingError) -> Bool {
        switch error.kind {
        case .transport(let code): retryableTransportErrors.contains(code)
        default: error.statusCode.map(retryableStatusCodes.contains) ?? false
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
