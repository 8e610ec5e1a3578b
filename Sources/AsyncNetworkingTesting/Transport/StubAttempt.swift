import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One attempt on the ``StubTransport``: the task playing the stub's answer, and the gate every
/// event goes through on its way to the manager.
///
/// Events are reported under ``state``'s lock, so the player's events and a ``cancel()`` are
/// reported in one order, nothing follows a completion, and exactly one completion is reported.
/// Reporting only enqueues the event on the manager's executor (never runs it in place), so the
/// lock is never held while the Session layer runs. The reference to the manager that reporting
/// takes is handed back and released only after the lock: the enqueued job may already have run
/// on another thread, and if the caller dropped the manager meanwhile, that release is the last
/// one — the manager's `deinit` then releases the transport, whose `deinit` cancels this attempt
/// (taking this lock). Paused in place (``setPaused(_:)``, a
/// transfer's `suspend()`), the player waits before its next head or body piece, as a paused curl
/// transfer stops reading: the request is not sent again on resume.
package final class StubAttempt: PausableInPlace, Sendable {
    /// Whether the attempt reported its completion, the task playing the answer, and the pause.
    private struct State: Sendable {
        /// The one completion was reported: nothing more is.
        var completed = false
        /// The task playing the answer, until it ends or is cancelled.
        var player: Task<Void, Never>?
        /// Paused in place: the player waits before its next head or body piece.
        var paused = false
        /// The player, waiting for the pause to end.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Guards ``State`` (the player task and the manager's executor both reach it).
    private let state = SanitizedMutex(State())
    /// Hands an event to the manager's executor, in call order; returns what it retained to do so
    /// (the manager), to be released outside the lock.
    private let report: @Sendable (AttemptID, AttemptEvent) -> (any Sendable)?
    /// Called once, after the completion was reported (the transport forgets the attempt).
    private let ended: @Sendable (AttemptID) -> Void
    /// Unique among the transport's attempts.
    package let attemptID: AttemptID

    /// An attempt that reports through `report` (which must enqueue, never run the event in place)
    /// and calls `ended` once its completion was reported.
    init(
        id: AttemptID, report: @escaping @Sendable (AttemptID, AttemptEvent) -> (any Sendable)?,
        ended: @escaping @Sendable (AttemptID) -> Void
    ) {
        attemptID = id
        self.report = report
        self.ended = ended
    }

    /// Starts playing with `body`, on the concurrency pool. The task ends with the attempt.
    func start(_ body: @escaping @Sendable (StubAttempt) async -> Void) {
        let player = Task.detached { [self] in
            await body(self)
            // Whatever ended the play, the attempt no longer keeps the task.
            self.state.withLock { $0.player = nil }
        }
        let cancelledAlready = state.withLock { state -> Bool in
            if !state.completed { state.player = player }
            return state.completed
        }
        if cancelledAlready { player.cancel() }
    }

    /// Reports `event` unless the attempt already completed; a ``AttemptEvent/completed(_:)``
    /// completes it.
    /// - Returns: whether the event was reported (`false`: the attempt is over, stop playing).
    @discardableResult
    func send(_ event: AttemptEvent) -> Bool {
        var retained: (any Sendable)?
        let (sent, completed) = state.withLock { state -> (Bool, Bool) in
            guard !state.completed else { return (false, false) }
            if case .completed = event {
                state.completed = true
                state.player = nil
            }
            retained = report(attemptID, event)
            return (true, state.completed)
        }
        withExtendedLifetime(retained) {}  // released here, after the lock (see the type's doc)
        retained = nil
        if completed { ended(attemptID) }
        return sent
    }

    /// Completes the attempt with `error` (`nil`: success).
    func complete(_ error: (any Error)? = nil, bodyReadFailure: NetworkingError? = nil) {
        send(.completed(AttemptOutcome(error: error, bodyReadFailure: bodyReadFailure)))
    }

    /// Stops the player and reports the attempt cancelled (`URLError(.cancelled)`), unless it
    /// already completed: then nothing happens.
    package func cancel() {
        var retained: (any Sendable)?
        let (cancelled, player, waiters) = state.withLock { state -> (Bool, Task<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            guard !state.completed else { return (false, nil, []) }
            state.completed = true
            let player = state.player
            state.player = nil
            retained = report(attemptID, .completed(AttemptOutcome(error: URLError(.cancelled))))
            defer { state.waiters = [] }
            return (true, player, state.waiters)
        }
        withExtendedLifetime(retained) {}  // released here, after the lock (see the type's doc)
        retained = nil
        player?.cancel()
        for waiter in waiters { waiter.resume() }
        if cancelled { ended(attemptID) }
    }

    /// Pauses (`true`) or resumes (`false`) the player where it stands.
    package func setPaused(_ paused: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.paused = paused
            guard !paused else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the attempt is not paused (at once when it is not, or when it completed or
    /// the player was cancelled).
    func waitWhilePaused() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.paused, !state.completed, !Task.isCancelled else { return false }
                    state.waiters.append(continuation)
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
