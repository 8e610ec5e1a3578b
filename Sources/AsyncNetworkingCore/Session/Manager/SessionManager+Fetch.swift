import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The native whole-body path: like ``SessionManager/data(for:options:)`` but answering with an
/// ``HTTPResponseHead`` instead of an `HTTPURLResponse`.
extension SessionManager {
    /// Loads `request` and returns the whole body and the response head, for any status code.
    ///
    /// The same transfer as ``data(for:options:)`` — redirects, credentials, the security policy,
    /// hooks, limits and ``TransferOptions`` apply alike — without Foundation's `HTTPURLResponse`,
    /// whose making is the largest single cost of a small request on Linux. Prefer it on hot paths;
    /// ``HTTPResponseHead/makeHTTPURLResponse()`` gives Foundation's type where one is needed.
    ///
    /// Suspends until the transfer ends. Cancelling the calling task cancels the transfer and throws
    /// ``NetworkingError/Kind/cancelled`` once the transport has stopped it.
    ///
    /// - Throws: ``NetworkingError``, as ``data(for:options:)`` does.
    public nonisolated func fetch(_ request: URLRequest, options: TransferOptions = .default) async throws(NetworkingError) -> (Data, HTTPResponseHead) {
        let (request, upload) = try RequestCarriedBody.split(request)
        let collected = try await awaitTransfer(request) { manager, id, continuation throws(NetworkingError) in
            let state = try manager.register(request, id: id, upload: upload, options: options) { _ in
                CollectorSink(continuation: continuation)
            }
            state.declaredKind = .data
        }
        return (collected.body, HTTPResponseHead(collected.head, url: collected.url))
    }

    /// Loads `url` with a GET and returns the whole body and the response head. See
    /// ``fetch(_:options:)``.
    public nonisolated func fetch(from url: URL, options: TransferOptions = .default) async throws(NetworkingError) -> (Data, HTTPResponseHead) {
        try await fetch(URLRequest(url: url), options: options)
    }
}

/// Batches on the native path.
extension SessionManager {
    /// Loads every request, at most `width` at once, and returns the bodies and response heads in
    /// the order of `requests`: ``data(for:width:options:progress:)`` with each member a
    /// ``fetch(_:options:)`` call. Fails fast.
    ///
    /// Suspends until every member has ended. Memory: every body is held until the batch returns.
    ///
    /// - Parameters:
    ///   - requests: one transfer per request, in this order.
    ///   - width: at most this many transfers run at once. Default ``defaultBatchWidth`` (8); values
    ///     below 1 count as 1.
    ///   - options: the options of every transfer. Default ``TransferOptions/default``.
    /// - Returns: `results[i]` is the body and head for `requests[i]`.
    /// - Throws: the first member's ``NetworkingError``, in completion order; running transfers are
    ///   then cancelled and requests not yet started are never sent. Cancelling the calling task
    ///   does the same and throws ``NetworkingError/Kind/cancelled``.
    public nonisolated func fetch(
        _ requests: some Collection<URLRequest> & Sendable,
        width: Int = SessionManager.defaultBatchWidth,
        options: TransferOptions = .default
    ) async throws(NetworkingError) -> [(Data, HTTPResponseHead)] {
        let runner = BatchRunner(inputs: Array(requests), width: width) { _, request throws(NetworkingError) in
            try await self.fetch(request, options: options)
        }
        return try await runner.collectFailingFast(notStarted: Self.notStartedError)
    }
}
