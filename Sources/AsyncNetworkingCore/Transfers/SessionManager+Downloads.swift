import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads to a file (AFNetworking's `downloadTaskWithRequest:progress:destination:completionHandler:`),
/// resumable on Linux, pausable without corrupting the file.
extension SessionManager {
    /// Starts downloading `request` into `destination` and returns its handle.
    ///
    /// The body streams to a partial file on disk (never into memory) and is moved to its
    /// destination when complete. The handle's ``TransferHandle/events`` deliver `.response` (once,
    /// for the response whose body becomes the file), `.downloadProgress` (bytes on disk out of the
    /// whole representation, counting bytes kept from earlier attempts), `.downloaded(url)` with the
    /// final file, then `.completed`. A status other than 2xx is never written to the destination:
    /// the stream throws ``NetworkingError/Kind/unacceptableStatusCode(_:)`` carrying the response
    /// and up to ``DownloadOptions/maxErrorBodyBytes`` of its body.
    ///
    /// ``TransferHandle/suspend()`` on the running download stops its connection and keeps the bytes
    /// on disk; ``TransferHandle/resume()`` continues with `Range` + `If-Range` (a server that
    /// ignores the range, or a changed resource, restarts it from byte 0), so the file is
    /// byte-identical either way. URLSession's own `suspend()` is never used (on Linux it corrupts
    /// the body). Cancelling (``TransferHandle/cancel()``, or abandoning the events) deletes the
    /// partial file unless ``DownloadOptions/resumable`` is set.
    ///
    /// - Throws: before anything is sent — the request's validation errors,
    ///   ``NetworkingError/Kind/fileWriteFailed`` for a destination that exists (without
    ///   ``DownloadOptions/replaceExisting``) or whose directory is missing (without
    ///   ``DownloadOptions/createIntermediateDirectories``), ``NetworkingError/Kind/unsupportedOperation``
    ///   when another download is writing the same partial file.
    public func downloadTask(
        with request: URLRequest, to destination: DownloadDestination, options: DownloadOptions = .default
    ) throws(NetworkingError) -> TransferHandle {
        let (request, upload) = try RequestCarriedBody.split(request)
        let (plan, file, point) = try DownloadPlan.prepare(request, to: destination, options: options)
        let id = nextTransferID()
        let channel = EventChannel(policy: options.transfer.buffer) { [weak self] in
            self?.perform { $0.cancelTransfer(id, reason: NetworkingError(.cancelled, "the event stream was cancelled or abandoned")) }
        }
        let sink = DownloadSink(plan: plan, file: file, resumePoint: point, output: .events(channel))
        sink.reportLater = { [weak self, hold = options.transfer.completionHold] in self?.publishLater($0, hold: hold) }
        do {
            _ = try register(request, id: id, upload: upload, options: options.transfer) { _ in sink }
        } catch {
            sink.abandon()
            throw error
        }
        return TransferHandle(id: id, originalRequest: request, manager: self, lifetime: ConsumerLifetime(channel: channel))
    }

    /// Downloads `request` into `destination`; returns the final file URL and the response.
    ///
    /// Suspends until the file is in place. With ``DownloadOptions/resumable``, a transport failure
    /// (a dropped connection, a timeout) after new bytes reached the disk is continued automatically
    /// with a `Range` request, up to ``DownloadOptions/automaticResumeAttempts`` times; the response
    /// returned is then the last one (a `206`). Cancelling the calling task cancels the download and
    /// throws ``NetworkingError/Kind/cancelled`` once it has stopped and its partial file is deleted
    /// (or kept, when resumable). See ``downloadTask(with:to:options:)`` for everything else.
    public func download(
        for request: URLRequest, to destination: DownloadDestination, options: DownloadOptions = .default
    ) async throws(NetworkingError) -> (URL, HTTPURLResponse) {
        try await options.resumingAutomatically { (options) async throws(NetworkingError) in
            try await downloadOnce(request, to: destination, options: options)
        }
    }

    /// Downloads `url` with a GET into `destination`. See ``download(for:to:options:)``.
    public func download(
        from url: URL, to destination: DownloadDestination, options: DownloadOptions = .default
    ) async throws(NetworkingError) -> (URL, HTTPURLResponse) {
        try await download(for: URLRequest(url: url), to: destination, options: options)
    }

    // MARK: Internals

    private nonisolated func downloadOnce(
        _ request: URLRequest, to destination: DownloadDestination, options: DownloadOptions
    ) async throws(NetworkingError) -> (URL, HTTPURLResponse) {
        try await awaitTransfer(request) { manager, id, continuation throws(NetworkingError) in
            let (request, upload) = try RequestCarriedBody.split(request)
            let (plan, file, point) = try DownloadPlan.prepare(request, to: destination, options: options)
            let sink = DownloadSink(plan: plan, file: file, resumePoint: point, output: .awaiting(continuation))
            sink.reportLater = { [weak manager, hold = options.transfer.completionHold] in manager?.publishLater($0, hold: hold) }
            do throws(NetworkingError) {
                _ = try manager.register(request, id: id, upload: upload, options: options.transfer) { _ in sink }
            } catch {
                sink.abandon()
                throw error
            }
        }
    }
}
