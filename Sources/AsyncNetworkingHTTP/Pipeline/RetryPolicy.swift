import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decides, after a failed attempt, whether to try again and when (Alamofire's `RequestRetrier`).
///
/// The pipeline asks after every failure — a transport error, or a response refused by
/// validation or decoding — except cancellation, adaptation failures, a passed deadline, and a
/// failure after the call's retry limit (``RetryContext/deadline``). It then sleeps the delay on
/// the caller's task (cancelling the task ends the sleep at once with
/// ``NetworkingError/Kind/cancelled``) and sends the request again, adapted anew. Whatever the
/// policy answers, a retry that would start after ``RetryContext/deadline`` is not made: the
/// failure is returned. ``DefaultRetryPolicy`` is the usual choice; ``NoRetryPolicy`` turns
/// retries off.
public protocol RetryPolicy: Sendable {
    /// Whether and when to retry after `failure`. May suspend (to consult something shared).
    func decide(_ failure: RetryContext) async -> RetryDecision

    /// The overall deadline of a request, from the start of its first attempt, spanning every
    /// attempt and wait: an attempt still running then is cancelled and the request fails with
    /// ``NetworkingError/Kind/deadlineExceeded``; a retry that would start after it is not made.
    /// `nil` (the default implementation) for none. The client's own ``HTTPClient/deadline`` (or a
    /// request's ``Request/deadline(_:)``) does the same; the earlier of the two applies.
    var deadline: Duration? { get }

    /// Called once when a request succeeds (to refill a ``RetryBudget``). The default does nothing.
    func requestSucceeded()
}

extension RetryPolicy {
    /// No overall deadline.
    public var deadline: Duration? { nil }
    /// Does nothing.
    public func requestSucceeded() {}
}

/// A retry policy's answer.
public enum RetryDecision: Sendable, Hashable {
    /// Send the request again after this delay (zero for at once).
    case retry(after: Duration)
    /// Fail with the attempt's error.
    case doNotRetry
}

/// What a retry policy knows about a failed attempt.
public struct RetryContext: Sendable {
    /// The request as sent in the failed attempt (after adapters).
    public let request: URLRequest
    /// The failure.
    public let error: NetworkingError
    /// How many attempts were made so far (1 after the first).
    public let attemptCount: Int
    /// When the first attempt started.
    public let startedAt: ContinuousClock.Instant
    /// When the failure was seen.
    public let failedAt: ContinuousClock.Instant
    /// The wall-clock time of the failure (for an HTTP-date `Retry-After`).
    public let failedAtDate: Date
    /// Whether the body can be sent again: `true` without a body or with a body held in memory,
    /// `false` for a one-shot stream.
    public let isBodyReplayable: Bool
    /// The latest instant a retry may start at, `nil` for no limit: the call's deadline
    /// (``HTTPClient/deadline``, ``Request/deadline(_:)``, ``RetryPolicy/deadline``), or without
    /// one the request's idle timeout (`timeoutInterval`) after the call's start — so a timed-out
    /// attempt is not retried unless a deadline was given. The pipeline never starts a retry
    /// after it, whatever the policy answers.
    public let deadline: ContinuousClock.Instant?

    /// Creates a context (the pipeline makes these; public for testing a policy).
    public init(
        request: URLRequest, error: NetworkingError, attemptCount: Int,
        startedAt: ContinuousClock.Instant, failedAt: ContinuousClock.Instant = .now,
        failedAtDate: Date = Date(), isBodyReplayable: Bool = true, deadline: ContinuousClock.Instant? = nil
    ) {
        self.deadline = deadline
        self.request = request
        self.error = error
        self.attemptCount = attemptCount
        self.startedAt = startedAt
        self.failedAt = failedAt
        self.failedAtDate = failedAtDate
        self.isBodyReplayable = isBodyReplayable
    }

    /// The HTTP response of the failed attempt, when one arrived.
    public var response: HTTPURLResponse? { error.response }
}

/// Never retries.
public struct NoRetryPolicy: RetryPolicy {
    /// Creates the policy.
    public init() {}
    /// ``RetryDecision/doNotRetry``.
    public func decide(_ failure: RetryContext) async -> RetryDecision { .doNotRetry }
}
