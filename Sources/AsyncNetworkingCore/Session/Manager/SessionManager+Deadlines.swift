import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Total deadlines of transfers (``TransferOptions/deadline``): fixed when a transfer is
/// registered, enforced by one timer per transfer that has one (none otherwise), on the
/// manager's executor.
extension SessionManager {
    /// The instant `options`' deadline falls on for a transfer registered now; throws
    /// ``NetworkingError/Kind/deadlineExceeded`` when it has already passed (nothing is sent).
    static func deadline(of options: TransferOptions, request: URLRequest) throws(NetworkingError) -> ContinuousClock.Instant? {
        guard let deadline = options.deadline else { return nil }
        let now = ContinuousClock.now
        let instant = deadline.instant(startingAt: now)
        guard instant > now else { throw Self.deadlineError(deadline.phrase, before: true, request: request) }
        return instant
    }

    /// The error of a call whose deadline (`phrase`: "10.0 s") passed before anything was sent,
    /// or while it ran.
    package static func deadlineError(_ phrase: String, before: Bool, request: URLRequest?) -> NetworkingError {
        NetworkingError(
            .deadlineExceeded,
            before ? "the deadline (\(phrase)) had passed before the request was sent" : "the deadline (\(phrase)) passed",
            request: request
        )
    }

    /// Arms the timer of a registered transfer that has a deadline.
    func armDeadline(of state: TransferState) {
        guard let instant = state.deadline else { return }
        let id = state.id
        let item = DispatchWorkItem { [weak self] in
            self?.perform { manager in manager.deadlineFired(id) }
        }
        state.deadlineTimer?.cancel()
        state.deadlineTimer = item
        let seconds = SafeTime.seconds(max(.zero, instant - .now))
        executor.queue.asyncAfter(deadline: .now() + seconds, execute: item)
    }

    /// The timer of transfer `id` fired: the transfer fails with
    /// ``NetworkingError/Kind/deadlineExceeded``, unless it already ended (or the dispatch clock
    /// ran ahead of the continuous one: then the timer is armed again for the rest).
    private func deadlineFired(_ id: TransferID) {
        guard let state = transfers[id], let instant = state.deadline else { return }
        guard ContinuousClock.now >= instant else { return armDeadline(of: state) }
        state.deadlineTimer = nil
        let phrase = state.options.deadline?.phrase ?? "the instant given"
        cancelTransfer(id, reason: Self.deadlineError(phrase, before: false, request: state.originalRequest))
    }
}

/// Runs an operation under a deadline, for the waits a transfer's own deadline cannot cover (a
/// coalesced caller's wait, a retry policy's adapters): when the deadline passes first, the
/// operation's task is cancelled and ``NetworkingError/Kind/deadlineExceeded`` is thrown.
package enum DeadlineRace {
    /// `operation`'s result, or ``NetworkingError/Kind/deadlineExceeded`` (with `phrase` and
    /// `request` in the message) once `deadline` passed. Without a deadline, `operation` as is.
    /// Cancelling the calling task cancels `operation`, whose own error is then thrown.
    package static func run<Value: Sendable>(
        until deadline: ContinuousClock.Instant?, phrase: @autoclosure () -> String, request: URLRequest?,
        _ operation: @escaping @Sendable () async throws(NetworkingError) -> Value
    ) async throws(NetworkingError) -> Value {
        guard let deadline else { return try await operation() }
        guard deadline > .now else { throw SessionManager.deadlineError(phrase(), before: false, request: request) }
        let result: Result<Value, NetworkingError>? = await withTaskGroup(of: Result<Value, NetworkingError>?.self) { group in
            group.addTask {
                do throws(NetworkingError) { return .success(try await operation()) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            // The deadline passed (or the caller cancelled, which ends the sleep too): the
            // operation's own outcome counts only when it succeeded or the caller cancelled.
            var finished: Result<Value, NetworkingError>?
            while let next = await group.next() { if let next { finished = next } }
            if case .success = finished { return finished }
            if Task.isCancelled, ContinuousClock.now < deadline { return finished }
            return nil
        }
        guard let result else { throw SessionManager.deadlineError(phrase(), before: false, request: request) }
        return try result.get()
    }
}
