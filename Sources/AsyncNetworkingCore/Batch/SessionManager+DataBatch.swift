import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Batches of requests: many ``SessionManager/data(for:options:)`` calls, bounded, in input order.
extension SessionManager {
    /// Loads every request, at most `width` at once, and returns the bodies and responses in the
    /// order of `requests` whatever order they finish in. Fails fast.
    ///
    /// Each member is a ``data(for:options:)`` call, run by one of `width` worker tasks: any status
    /// code is a success.
    /// Requests start in order; a new one starts as soon as a running one ends.
    ///
    /// ```swift
    /// let pages = try await manager.data(for: urls.map { URLRequest(url: $0) }, width: 4)
    /// ```
    ///
    /// Suspends until every member has ended. Memory: every body is held until the batch returns.
    ///
    /// - Parameters:
    ///   - requests: one transfer per request, in this order.
    ///   - width: at most this many transfers run at once. Default ``defaultBatchWidth`` (8); values
    ///     below 1 count as 1. The manager's ``maxConcurrentTransfers`` and URLSession's
    ///     `httpMaximumConnectionsPerHost` (6 by default) still apply on top.
    ///   - options: the options of every transfer, including its ``TransferOptions/priority``
    ///     under the manager's concurrency limit. Default ``TransferOptions/default``.
    ///   - progress: where to publish the batch's ``BatchProgress`` (make one with
    ///     ``BatchProgress/makeStream()``); it is finished when the batch returns. Default `nil`.
    ///     With progress, members read their transfers' event streams instead of the faster
    ///     collecting path.
    /// - Returns: `results[i]` is the body and response for `requests[i]`.
    /// - Throws: the first member's ``NetworkingError``, in completion order. Running transfers are
    ///   then cancelled, and the batch waits until URLSession has stopped them (without progress,
    ///   the registry is clean when it throws); requests not yet started are never sent. Cancelling
    ///   the calling task does the same and throws ``NetworkingError/Kind/cancelled``.
    public nonisolated func data(
        for requests: some Collection<URLRequest> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        options: TransferOptions = .default,
        progress: AsyncStream<BatchProgress>.Continuation? = nil
    ) async throws(NetworkingError) -> [(Data, HTTPURLResponse)] {
        let (runner, tracker) = dataBatch(requests, width: width, options: options, progress: progress)
        do {
            let results = try await runner.collectFailingFast(notStarted: Self.notStartedError)
            await tracker?.close()
            return results
        } catch {
            await tracker?.close()
            throw error
        }
    }

    /// Loads every request, at most `width` at once, lets every transfer finish, and returns
    /// every outcome in the order of `requests`. Never throws.
    ///
    /// Suspends until every member has ended. Cancelling the calling task cancels every running
    /// transfer and sends no more: those results are ``NetworkingError/Kind/cancelled``.
    ///
    /// - Parameters: the same as ``data(for:width:options:progress:)``.
    /// - Returns: `results[i]` is the outcome for `requests[i]`.
    public nonisolated func settledData(
        for requests: some Collection<URLRequest> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        options: TransferOptions = .default,
        progress: AsyncStream<BatchProgress>.Continuation? = nil
    ) async -> [Result<(Data, HTTPURLResponse), NetworkingError>] {
        let (runner, tracker) = dataBatch(requests, width: width, options: options, progress: progress)
        let results = await runner.collectSettled(notStarted: Self.notStartedError)
        await tracker?.close()
        return results
    }

    /// The runner of a request batch (and its progress tracker when `progress` is given): each
    /// member takes the fast collecting path, or the event-reading path when progress is wanted.
    nonisolated func dataBatch(
        _ requests: some Collection<URLRequest>, width: Int, options: TransferOptions,
        progress: AsyncStream<BatchProgress>.Continuation?
    ) -> (BatchRunner<URLRequest, (Data, HTTPURLResponse), NetworkingError>, BatchProgressTracker?) {
        let requests = Array(requests)
        let tracker = progress.map { BatchProgressTracker(count: requests.count, continuation: $0) }
        let runner = BatchRunner(inputs: requests, width: width) { index, request throws(NetworkingError) in
            guard let tracker else { return try await self.data(for: request, options: options) }
            return try await self.trackedData(for: request, options: options, member: index, tracker: tracker)
        }
        return (runner, tracker)
    }

    /// The error of a request the batch never sent because the calling task was cancelled.
    @Sendable static func notStartedError(_ request: URLRequest) -> NetworkingError {
        NetworkingError(.cancelled, "the batch was cancelled before this request was sent", request: request)
    }
}
