/// Batches of any async work on the manager, the structured-concurrency replacement for
/// AFNetworking's `completionGroup`.
extension SessionManager {
    /// The number of members a batch runs at once unless told otherwise: 8.
    public static let defaultBatchWidth = 8

    /// Runs `operation` once per input, at most `width` at once, and returns the outputs in the
    /// order of `inputs` whatever order they finish in. Fails fast.
    ///
    /// Inputs start in order; a new one starts as soon as a running one ends. Each member runs in
    /// a child task of a task group, so it may itself await several transfers (a chain).
    ///
    /// ```swift
    /// let users = try await manager.batch(ids, width: 4) { manager, id in
    ///     try await manager.data(from: baseURL.appending(path: "users/\(id)")).0
    /// }
    /// ```
    ///
    /// Suspends until every member has ended. Memory: every output is held until the batch returns.
    ///
    /// - Parameters:
    ///   - inputs: one member per element, in this order.
    ///   - width: at most this many members run at once. Default ``defaultBatchWidth`` (8); values
    ///     below 1 count as 1. The manager's own ``maxConcurrentTransfers`` still applies on top.
    ///   - operation: one member's work, given this manager and its input.
    /// - Returns: the outputs, `outputs[i]` for `inputs[i]`.
    /// - Throws: the first error a member throws (in completion order). Members still running are
    ///   then cancelled and awaited, and members not yet started never start, before it is thrown.
    ///   Cancelling the calling task cancels every running member and starts no more; the batch
    ///   then throws the first error of a member that failed other than by being cancelled, else
    ///   the first member's cancellation error, or `CancellationError` if none failed.
    public nonisolated func batch<Input: Sendable, Output: Sendable>(
        _ inputs: some Collection<Input> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        operation: @escaping @Sendable (SessionManager, Input) async throws -> Output
    ) async throws -> [Output] {
        let runner = BatchRunner(inputs: Array(inputs), width: width) { _, input throws(any Error) in
            try await operation(self, input)
        }
        return try await runner.collectFailingFast { _ in CancellationError() }
    }

    /// Runs `operation` once per input, at most `width` at once, lets every member finish, and
    /// returns every outcome in the order of `inputs`. Never throws.
    ///
    /// Suspends until every member has ended. Cancelling the calling task cancels every running
    /// member and starts no more: running members report whatever their cancellation throws,
    /// members that never started report `CancellationError`.
    ///
    /// - Parameters:
    ///   - inputs: one member per element, in this order.
    ///   - width: at most this many members run at once. Default ``defaultBatchWidth`` (8); values
    ///     below 1 count as 1.
    ///   - operation: one member's work, given this manager and its input.
    /// - Returns: `results[i]` is the outcome for `inputs[i]`.
    public nonisolated func settledBatch<Input: Sendable, Output: Sendable>(
        _ inputs: some Collection<Input> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        operation: @escaping @Sendable (SessionManager, Input) async throws -> Output
    ) async -> [Result<Output, any Error>] {
        let runner = BatchRunner(inputs: Array(inputs), width: width) { _, input throws(any Error) in
            try await operation(self, input)
        }
        return await runner.collectSettled { _ in CancellationError() }
    }
}

extension BatchRunner {
    /// Runs the batch failing fast; returns outputs in input order or throws the first failure.
    /// - Parameter notStarted: the error for an input the batch never started because the calling
    ///   task was cancelled (thrown when no member failed).
    func collectFailingFast(notStarted: (Input) -> Failure) async throws(Failure) -> [Output] {
        let (results, started, firstFailure) = await runPooled(failFast: true)
        if let firstFailure, case .failure(let error)? = results[firstFailure] { throw error }
        if started < inputs.count { throw notStarted(inputs[started]) }
        return results.map { result in
            guard case .success(let output)? = result else { preconditionFailure("a started member of a batch was never stored") }
            return output
        }
    }

    /// Runs the batch to the end; returns every outcome in input order.
    /// - Parameter notStarted: the error for an input the batch never started because the calling
    ///   task was cancelled.
    func collectSettled(notStarted: (Input) -> Failure) async -> [Result<Output, Failure>] {
        let (results, _, _) = await runPooled(failFast: false)
        return results.enumerated().map { index, result in result ?? .failure(notStarted(inputs[index])) }
    }
}
