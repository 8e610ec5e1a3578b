import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an upload's body holds on to until the transfer ends: a spooled temporary file to delete.
/// Released exactly once, on every path.
final class UploadBodyResources: Sendable {
    let temporaryFile: URL?

    init(temporaryFile: URL? = nil) {
        self.temporaryFile = temporaryFile
    }

    /// Nothing to release.
    static let none = UploadBodyResources()

    /// Deletes the temporary file.
    func release() {
        if let temporaryFile { TransferFiles.remove(temporaryFile) }
    }
}

/// Wraps the sink of an upload whose body has resources: forwards everything and releases the
/// resources when the transfer ends.
final class UploadBodySink: TransferSink {
    private let inner: any TransferSink
    private let resources: UploadBodyResources

    init(_ inner: any TransferSink, resources: UploadBodyResources) {
        self.inner = inner
        self.resources = resources
    }

    var wantsProgress: Bool { inner.wantsProgress }

    func didReceiveResponse(for transfer: TransferState) -> NetworkingError? {
        inner.didReceiveResponse(for: transfer)
    }

    func didReceive(data: Data, for transfer: TransferState) -> NetworkingError? {
        inner.didReceive(data: data, for: transfer)
    }

    func didProgress(_ progress: TransferProgress, upload: Bool) {
        inner.didProgress(progress, upload: upload)
    }

    func flowControlWindow(report: @escaping @Sendable (Int64) -> Void) -> Int? {
        inner.flowControlWindow(report: report)
    }

    var consumedBytes: Int64 { inner.consumedBytes }

    func didFinish(_ result: Result<TransferMetrics, NetworkingError>, for transfer: TransferState) -> FinishOutcome {
        resources.release()
        return inner.didFinish(result, for: transfer)
    }
}

/// Registering uploads whose body has resources (spooled files).
extension SessionManager {
    /// Starts the upload and returns its handle; the resources are released when it ends (or now,
    /// if it cannot be registered).
    func uploadHandle(
        _ request: URLRequest, body: UploadSource, options: TransferOptions, resources: UploadBodyResources
    ) throws(NetworkingError) -> TransferHandle {
        let id = nextTransferID()
        let channel = EventChannel(policy: options.eventBufferPolicy) { [weak self] in
            self?.perform { $0.cancelTransfer(id, reason: NetworkingError(.cancelled, "the event stream was cancelled or abandoned")) }
        }
        do {
            _ = try register(request, id: id, upload: body, options: options) { _ in
                UploadBodySink(ChannelSink(channel: channel, flowControlled: !options.collectsWholeBody), resources: resources)
            }
        } catch {
            resources.release()
            throw error
        }
        return TransferHandle(id: id, originalRequest: request, manager: self, lifetime: ConsumerLifetime(channel: channel))
    }

    /// Uploads and returns the response body and response, like ``upload(for:from:options:)``:
    /// the registration is enqueued on the manager's queue without awaiting the actor, and the
    /// completion resumes the caller directly. Cancelling the calling task cancels the transfer; the
    /// resources are released on every path.
    nonisolated func uploadAndCollect(
        _ request: URLRequest, body: UploadSource, options: TransferOptions, resources: UploadBodyResources
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        let collected = try await awaitTransfer(request, cleanup: { resources.release() }) { manager, id, continuation throws(NetworkingError) in
            _ = try manager.register(request, id: id, upload: body, options: options) { _ in
                UploadBodySink(CollectorSink(continuation: continuation), resources: resources)
            }
        }
        return try collected.makeResult(request: request)
    }
}
