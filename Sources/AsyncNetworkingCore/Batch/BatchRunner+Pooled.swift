/// The collecting batches (fail-fast and settle-all) on `width` long-lived workers.
///
/// ``BatchRunner/run(failFast:deliver:)`` makes a child task per member and wakes the calling task
/// at every completion to start the next one: per request, a task creation and a thread hand-off
/// more than a caller looping over its own requests. A collecting batch has nothing to hand the
/// caller before it ends, so here each of `width` workers claims the next input itself (in input
/// order, under a lock) as soon as its member ends, and stores the outcome in place. The rules are
/// ``BatchRunner/run(failFast:deliver:)``'s: at most `width` at once, inputs started in order, the
/// first failure in completion order stops the batch (running members are cancelled and their
/// outcomes dropped, inputs not yet started never start), the caller's cancellation cancels every
/// member and starts no more, and with `failFast` a member's cancellation caused by the caller's
/// does not count as the first failure while a real failure may still come.
extension BatchRunner {
    /// What the workers share.
    private struct PoolState: Sendable {
        /// The next input to start.
        var next = 0
        /// No further input starts; outcomes that arrive from now on are dropped.
        var stopped = false
        /// Outcomes by input index (`nil`: not started, or dropped after the stop).
        var results: [Result<Output, Failure>?]
        /// The first failure (fail-fast), by index.
        var firstFailure: Int?
        /// The first member cancelled by the caller's cancel (fail-fast), held back as a failure
        /// of last resort.
        var heldCancellation: (index: Int, result: Result<Output, Failure>)?
    }

    /// Runs the members on `width` workers.
    /// - Returns: the outcomes by index (`nil` for inputs never started), how many inputs started
    ///   (a prefix), and the index of the failure that stopped a fail-fast batch.
    func runPooled(failFast: Bool) async -> (results: [Result<Output, Failure>?], started: Int, firstFailure: Int?) {
        let inputs = inputs
        let operation = operation
        let state = SanitizedMutex(PoolState(results: Array(repeating: nil, count: inputs.count)))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<min(width, inputs.count) {
                group.addTask(executorPreference: executor) {
                    while true {
                        let claimed = state.withLock { state -> Int? in
                            guard !state.stopped, state.next < inputs.count, !Task.isCancelled else { return nil }
                            defer { state.next += 1 }
                            return state.next
                        }
                        guard let index = claimed else { return }
                        let result: Result<Output, Failure>
                        do throws(Failure) {
                            result = .success(try await operation(index, inputs[index]))
                        } catch {
                            result = .failure(error)
                        }
                        let stopsTheBatch = state.withLock { state -> Bool in
                            guard !state.stopped else { return true } // draining after the stop
                            if case .failure(let error) = result, failFast {
                                if Task.isCancelled, isCancellation(error) {
                                    if state.heldCancellation == nil { state.heldCancellation = (index, result) }
                                    return false
                                }
                                state.results[index] = result
                                state.firstFailure = index
                                state.stopped = true
                                return true
                            }
                            state.results[index] = result
                            return false
                        }
                        // A worker that stopped the batch ends, so the calling task cancels the rest.
                        if stopsTheBatch { return }
                    }
                }
            }
            while await group.next() != nil {
                if state.withLock({ $0.stopped }) { group.cancelAll() }
            }
        }
        return state.withLock { state in
            var results = state.results
            var firstFailure = state.firstFailure
            if firstFailure == nil, let held = state.heldCancellation {
                results[held.index] = held.result
                firstFailure = held.index
            }
            return (results, min(state.next, inputs.count), firstFailure)
        }
    }
}
