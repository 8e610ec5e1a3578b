import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A data transfer that becomes a download when its response hook answers
/// ``ResponseDisposition/becomeDownload(to:options:)`` (AFNetworking's
/// `NSURLSessionResponseBecomeDownload` and `setDataTaskDidBecomeDownloadTaskBlock:`).
extension SessionManager {
    /// Replaces the transfer's stream sink by a download sink writing to `destination`, on the
    /// same event channel. Called while the transfer's callbacks are held back (before any body
    /// byte was delivered), so the file gets the whole body.
    /// - Returns: the error to fail the transfer with, or `nil`.
    func becomeDownload(
        _ state: TransferState, destination: DownloadDestination, options: DownloadOptions
    ) -> NetworkingError? {
        if state.sink is DownloadSink { return nil } // already one
        guard let streamSink = state.sink as? ChannelSink else {
            return NetworkingError(
                .unsupportedOperation,
                "the response hook asked to become a download, but this call returns the body in memory: use dataTask(with:)",
                request: state.originalRequest, response: state.response
            )
        }
        var plain = options
        plain.resumable = false
        plain.automaticResumeAttempts = 0
        let sink: DownloadSink
        do throws(NetworkingError) {
            let (plan, file, point) = try DownloadPlan.prepare(state.currentRequest, to: destination, options: plain)
            sink = DownloadSink(plan: plan, file: file, resumePoint: point, output: .events(streamSink.channel))
            // Starts the sink's attempt bookkeeping; the request it would send is not needed: the
            // response being delivered is already the whole body's.
            _ = try sink.request(forLaunching: state.currentRequest, transfer: state)
        } catch {
            return error
        }
        sink.reportLater = { [weak self, hold = state.options.completionHold] in self?.publishLater($0, hold: hold) }
        _ = streamSink.releaseChannel()
        #if os(Linux) && canImport(CCurlShim)
        if let attempt = state.task as? CurlAttempt {
            // The attempt's receive window now follows the bytes written to disk.
            let base = attempt.consumedAtStart
            _ = sink.flowControlWindow { [weak self, id = state.id] written in
                self?.reportConsumption(base + written, of: id)
            }
        }
        #endif
        state.sink = sink
        return nil
    }
}
