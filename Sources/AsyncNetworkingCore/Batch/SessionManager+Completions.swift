import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Batches read as they finish, for callers that process results while others still run.
extension SessionManager {
    /// Starts loading every request, at most `width` at once, and returns the completions in the
    /// order they finish, each with the index of its request.
    ///
    /// The batch starts now, in a task of its own, and stops (cancelling running transfers) when
    /// the task reading the sequence is cancelled or the sequence is dropped; see
    /// ``BatchCompletions`` for backpressure and the exact rules.
    ///
    /// - Parameters:
    ///   - requests: one transfer per request; requests start in this order.
    ///   - width: at most this many transfers run at once. Default ``defaultBatchWidth`` (8); values
    ///     below 1 count as 1.
    ///   - options: the options of every transfer. Default ``TransferOptions/default``.
    ///   - failurePolicy: what happens at the first failure. Default ``BatchFailurePolicy/settleAll``.
    ///   - progress: where to publish the batch's ``BatchProgress``; it is finished when the batch
    ///     ends. Default `nil`.
    public nonisolated func completions(
        for requests: some Collection<URLRequest> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        options: TransferOptions = .default,
        failurePolicy: BatchFailurePolicy = .settleAll,
        progress: AsyncStream<BatchProgress>.Continuation? = nil
    ) -> BatchCompletions<(Data, HTTPURLResponse), NetworkingError> {
        let (runner, tracker) = dataBatch(requests, width: width, options: options, progress: progress)
        return BatchCompletions(run: runner.start(failFast: failurePolicy == .failFast) { await tracker?.close() })
    }

    /// Starts running `operation` once per input, at most `width` at once, and returns the
    /// completions in the order they finish, each with the index of its input.
    ///
    /// The batch starts now, in a task of its own, and stops (cancelling running members) when
    /// the task reading the sequence is cancelled or the sequence is dropped; see
    /// ``BatchCompletions`` for backpressure and the exact rules.
    ///
    /// - Parameters:
    ///   - inputs: one member per element; members start in this order.
    ///   - width: at most this many members run at once. Default ``defaultBatchWidth`` (8); values
    ///     below 1 count as 1.
    ///   - failurePolicy: what happens at the first failure. Default ``BatchFailurePolicy/settleAll``.
    ///   - operation: one member's work, given this manager and its input.
    public nonisolated func batchCompletions<Input: Sendable, Output: Sendable>(
        _ inputs: some Collection<Input> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        failurePolicy: BatchFailurePolicy = .settleAll,
        operation: @escaping @Sendable (SessionManager, Input) async throws -> Output
    ) -> BatchCompletions<Output, any Error> {
        let runner = BatchRunner(inputs: Array(inputs), width: width) { _, input throws(any Error) in
            try await operation(self, input)
        }
        return BatchCompletions(run: runner.start(failFast: failurePolicy == .failFast) {})
    }
}

extension BatchRunner {
    /// Runs the batch in a new task that hands completions to a channel, and returns the handle
    /// its readers share. `onEnd` runs after every member has ended, before the channel finishes.
    func start(failFast: Bool, onEnd: @escaping @Sendable () async -> Void) -> BatchRun<Completion> {
        let channel = CompletionChannel<Completion>()
        let driver = Task {
            _ = await run(failFast: failFast) { completion in
                await channel.send(completion)
            }
            await onEnd()
            channel.finish()
        }
        return BatchRun(channel: channel, driver: driver)
    }
}
