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
/// lock is never held while the Session layer runs.
final class StubAttempt: TransportTask, Sendable {
    /// Whether the attempt reported its completion, and the task playing the answer.
    private struct State: Sendable {
        var completed = false
        var player: Task<Void, Never>?
    }

    /// Guards ``State`` (the player task and the manager's executor both reach it).
    private let state = SanitizedMutex(State())
    /// Hands an event to the manager's executor, in call order.
    private let report: @Sendable (AttemptID, AttemptEvent) -> Void
    /// Called once, after the completion was reported (the transport forgets the attempt).
    private let ended: @Sendable (AttemptID) -> Void
    let attemptID: AttemptID

    /// An attempt that reports through `report` (which must enqueue, never run the event in place)
    /// and calls `ended` once its completion was reported.
    init(
        id: AttemptID, report: @escaping @Sendable (AttemptID, AttemptEvent) -> Void,
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
        let (sent, completed) = state.withLock { state -> (Bool, Bool) in
            guard !state.completed else { return (false, false) }
            if case .completed = event {
                state.completed = true
                state.player = nil
            }
            report(attemptID, event)
            return (true, state.completed)
        }
        if completed { ended(attemptID) }
        return sent
    }

    /// Completes the attempt with `error` (`nil`: success).
    func complete(_ error: (any Error)? = nil, bodyReadFailure: NetworkingError? = nil) {
        send(.completed(AttemptOutcome(error: error, bodyReadFailure: bodyReadFailure)))
    }

    /// Stops the player and reports the attempt cancelled (`URLError(.cancelled)`), unless it
    /// already completed: then nothing happens.
    func cancel() {
        let (cancelled, player) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            guard !state.completed else { return (false, nil) }
            state.completed = true
            let player = state.player
            state.player = nil
            report(attemptID, .completed(AttemptOutcome(error: URLError(.cancelled))))
            return (true, player)
        }
        player?.cancel()
        if cancelled { ended(attemptID) }
    }

    /// Whether the attempt has completed (reported its one completion).
    var isCompleted: Bool { state.withLock { $0.completed } }
}
