import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The time limits of one pipeline call (``HTTPClient``'s awaiting calls), in one place.
///
/// **Rule: a limit the caller sets is the limit the caller sees.**
/// - The call's **deadline** is the earlier of ``TransferOptions/deadline`` (``HTTPClient/deadline``,
///   ``Request/deadline(_:)``) and the retry policy's ``RetryPolicy/deadline``, counted from the
///   call's start. It bounds everything the call does; when it passes the call fails with
///   ``NetworkingError/Kind/deadlineExceeded``, naming the deadline and the attempt.
/// - Retries start only before the **retry limit**: the deadline, or — without one — the
///   request's idle timeout (`timeoutInterval`) after the call's start. So without a deadline an
///   attempt that timed out is final (its timeout already used the window) and a silent server
///   costs the caller one timeout, as one URLSession task, AFNetworking or AsyncHTTPClient call
///   would; a failure that came quickly (a `503`, a refused connection) is still retried, as the
///   policy says, while the window lasts.
/// - The final error carries the number of attempts (``NetworkingError/attemptCount``).
struct PipelineLimits: Sendable {
    /// When the call's deadline passes; `nil` for none.
    let deadline: ContinuousClock.Instant?
    /// The deadline as messages name it: `10.0 s`, `the instant given`.
    let phrase: String
    /// When the call started.
    let startedAt: ContinuousClock.Instant

    init(options: TransferOptions, policy: any RetryPolicy, startedAt: ContinuousClock.Instant) {
        self.startedAt = startedAt
        let own = options.deadline.map { ($0.instant(startingAt: startedAt), $0.phrase) }
        let policys = policy.deadline.map {
            (startedAt.advanced(by: min($0, SafeTime.ceiling)), "\(SafeTime.seconds($0)) s, the retry policy's")
        }
        switch (own, policys) {
        case (let own?, let policys?): (deadline, phrase) = own.0 <= policys.0 ? own : policys
        case (let own?, nil): (deadline, phrase) = own
        case (nil, let policys?): (deadline, phrase) = policys
        case (nil, nil): (deadline, phrase) = (nil, "")
        }
    }

    /// The error of a call whose deadline passed before its first attempt; `nil` when it has not.
    func passedBeforeStart(_ request: URLRequest) -> NetworkingError? {
        guard let deadline, deadline <= .now else { return nil }
        return SessionManager.deadlineError(phrase, before: true, request: request)
    }

    /// The latest instant a retry may start at: the deadline; without one, the request's idle
    /// timeout after the call's start; `nil` when neither limits it (no deadline, a timeout of
    /// zero or infinity).
    func retryLimit(timeoutInterval: TimeInterval) -> ContinuousClock.Instant? {
        if let deadline { return deadline }
        return SafeTime.timeout(seconds: timeoutInterval).map { startedAt.advanced(by: $0) }
    }

    /// `operation` (adapting, renewing a credential), ended by the deadline if it passes first.
    func race<Value: Sendable>(
        _ request: URLRequest, _ operation: @escaping @Sendable () async throws(NetworkingError) -> Value
    ) async throws(NetworkingError) -> Value {
        try await DeadlineRace.run(until: deadline, phrase: phrase, request: request, operation)
    }

    /// The error the caller gets after `attempts` attempts: counted and, when the deadline ended
    /// the call, saying which deadline and during which attempt.
    func finalError(_ error: NetworkingError, attempts: Int) -> NetworkingError {
        guard error.kind == .deadlineExceeded, attempts > 0 else { return error.counting(attempts: attempts) }
        return NetworkingError(
            .deadlineExceeded, "the call's deadline (\(phrase)) passed during attempt \(attempts)",
            request: error.request, response: error.response, body: error.body,
            underlyingError: error.underlyingError, fileURL: error.fileURL, attemptCount: attempts
        )
    }
}
