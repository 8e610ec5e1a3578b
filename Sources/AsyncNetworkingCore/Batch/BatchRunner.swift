/// The engine behind every batch: runs an operation over inputs in a task group, at most `width`
/// at once, in input order of starting, and hands each result over in completion order.
///
/// It never throws: each member's outcome is a `Result`. Its callers turn that into fail-fast,
/// settle-all or a stream of completions.
struct BatchRunner<Input: Sendable, Output: Sendable, Failure: Error>: Sendable {
    /// One finished member: its position in the inputs and its outcome.
    typealias Completion = (index: Int, result: Result<Output, Failure>)

    let inputs: [Input]
    /// At least 1.
    let width: Int
    let operation: @Sendable (Int, Input) async throws(Failure) -> Output
    /// Where members run; `nil` keeps the global executor. Data batches keep it too: measured
    /// against nginx (batch of 1,000, width 16), members on the curl loop took 0.131 s against
    /// 0.090 s on the global executor — the loop thread, already the busiest, then also builds
    /// every result's `HTTPURLResponse`.
    let executor: (any TaskExecutor)?

    /// - Parameters:
    ///   - width: at most this many members run at once; values below 1 count as 1.
    ///   - executor: the members' task executor preference; default `nil` (the global executor).
    ///   - operation: runs one member, given its index and input.
    init(
        inputs: [Input], width: Int, executor: (any TaskExecutor)? = nil,
        operation: @escaping @Sendable (Int, Input) async throws(Failure) -> Output
    ) {
        self.inputs = inputs
        self.width = max(1, width)
        self.executor = executor
        self.operation = operation
    }

    /// Runs the members and calls `deliver` with each completion, in completion order, from the
    /// calling task. Returns once every member that started has ended.
    ///
    /// The next input starts as soon as a member ends (before `deliver` is called, so a slow
    /// `deliver` does not leave a slot idle), so at most `width` members run at once; while
    /// `deliver` is suspended no further member starts.
    ///
    /// The batch stops when `deliver` returns `false`, or at the first failure when `failFast`
    /// (that failure is still delivered): members not yet started never start, running ones are
    /// cancelled and awaited, and their completions are not delivered. When the calling task is
    /// cancelled, its members are cancelled with it (their completions are delivered) and no
    /// further member starts; with `failFast`, a member that then fails with cancellation
    /// (`CancellationError` or ``NetworkingError/Kind/cancelled``) does not count as the first
    /// failure: a member that fails otherwise is delivered as the first failure even if it ends
    /// later, and only if none does is the first cancellation delivered, last.
    ///
    /// - Returns: how many inputs were started: always a prefix of `inputs`, and every one of
    ///   them was delivered unless the batch stopped.
    func run(failFast: Bool, deliver: (Completion) async -> Bool) async -> Int {
        let inputs = inputs
        let operation = operation
        let executor = executor
        return await withTaskGroup(of: (Int, Result<Output, Failure>).self) { group in
            var started = 0
            func startNext() {
                let index = started
                let input = inputs[index]
                started += 1
                group.addTask(executorPreference: executor) {
                    do throws(Failure) {
                        return (index, .success(try await operation(index, input)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            while started < min(width, inputs.count), !Task.isCancelled { startNext() }
            var stopped = false
            var heldCancellation: Completion?
            while let (index, result) = await group.next() {
                guard !stopped else { continue } // draining cancelled members
                var failed = false
                if case .failure(let error) = result, failFast {
                    if Task.isCancelled, isCancellation(error) {
                        // An echo of the caller's cancel, not the batch's first failure: a real
                        // failure of a member still ending must win whatever order they end in.
                        if heldCancellation == nil { heldCancellation = (index, result) }
                        continue
                    }
                    failed = true
                }
                if !failed, started < inputs.count, !Task.isCancelled { startNext() }
                let accepted = await deliver((index, result))
                if failed || !accepted {
                    stopped = true
                    group.cancelAll()
                }
            }
            if !stopped, let heldCancellation { _ = await deliver(heldCancellation) }
            return started
        }
    }
}

/// Whether `error` is what a member throws because its task was cancelled.
func isCancellation(_ error: any Error) -> Bool {
    if error is CancellationError { return true }
    if let error = error as? NetworkingError, error.kind == .cancelled { return true }
    return false
}
