import Dispatch
import Foundation

/// One wait of the curl loop thread for a ``ServerTrustEvaluator``'s answer. The evaluator runs
/// in a task of its own; the first outcome wins — its answer, the timeout, or a cancellation (the
/// transfer's, or the loop's shutdown) — and later ones are ignored. Any thread may resolve it.
///
/// The evaluator runs on the cooperative pool, never on the waiting thread: making this wait the
/// task's executor (so a quick evaluator would cost no thread hand-off) was tried and dropped, as an
/// evaluator spinning without suspending then held the loop thread past its timeout and past a
/// cancel (a test's cancelled transfer took 5 s instead of 0.2 s). Here the bound always holds.
package final class CurlTrustWait: Sendable {
    /// How the wait ended.
    package enum Outcome: Sendable, Hashable {
        case decided(ServerTrustDecision)
        case timedOut
        case cancelled
    }

    private struct State: Sendable {
        var outcome: Outcome?
        var task: Task<Void, Never>?
    }

    private let state = SanitizedMutex(State())
    private let semaphore = DispatchSemaphore(value: 0)

    package init() {}

    /// Starts the evaluator in a detached task (it must not inherit the loop thread's context).
    package func start(_ evaluator: ServerTrustEvaluator, _ context: ServerTrustContext) {
        let task = Task.detached { [self] in
            let decision = await evaluator.evaluate(context)
            resolve(.decided(decision))
        }
        let alreadyOver = state.withLock { state -> Bool in
            state.task = task
            return state.outcome != nil
        }
        if alreadyOver { task.cancel() }
    }

    /// Ends the wait with `outcome` unless it already ended; cancels the evaluator's task unless
    /// the outcome is its own answer. Returns whether this call ended it.
    @discardableResult
    package func resolve(_ outcome: Outcome) -> Bool {
        let (ended, task) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            return (true, state.task)
        }
        guard ended else { return false }
        if case .decided = outcome {} else { task?.cancel() }
        semaphore.signal()
        return true
    }

    /// Wakes the waiting thread without ending the wait, so it runs `whenPoked` (queued jobs).
    func poke() {
        semaphore.signal()
    }

    /// Blocks the calling thread until the wait ends, at most `timeout` (then ``Outcome/timedOut``).
    /// Each ``poke()`` meanwhile runs `whenPoked` on this thread, then the wait goes on.
    package func wait(timeout: Duration, whenPoked: () -> Void = {}) -> Outcome {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = min(seconds, 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000
        let deadline = DispatchTime.now() + .nanoseconds(Int(max(1, nanoseconds)))
        while true {
            if let outcome = state.withLock({ $0.outcome }) { return outcome }
            if semaphore.wait(timeout: deadline) == .timedOut {
                resolve(.timedOut)
                return state.withLock { $0.outcome } ?? .timedOut
            }
            if state.withLock({ $0.outcome }) == nil { whenPoked() }
        }
    }
}
