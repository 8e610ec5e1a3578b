import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transfer moves — AFNetworking's data, upload and download tasks.
public enum TransferKind: Sendable, Hashable, CaseIterable {
    /// A data transfer: `dataTask(with:)`, `data(for:)`, `stream(for:)`, and the HTTP layer's calls
    /// (a request carrying its own `httpBody` is still a data transfer, as in AFNetworking).
    case data
    /// An upload: `uploadTask`/`upload` from data, a file, a stream or a sequence; multipart.
    case upload
    /// A download to a file: `downloadTask`/`download`, or a data transfer that became one.
    case download
}

/// A transfer waiting or running, as listed by ``SessionManager/tasks`` (AFNetworking's
/// `tasks`/`dataTasks`/`uploadTasks`/`downloadTasks`): a `Sendable` snapshot of its state and
/// progress, plus the controls of its ``TransferHandle``.
///
/// A snapshot does not keep the transfer alive and has no event stream (whoever started the
/// transfer holds that); its fields do not change — call ``SessionManager/snapshot(of:)`` again.
public struct TransferSnapshot: Sendable, Identifiable {
    /// Where a listed transfer stands (`NSURLSessionTaskState`).
    public enum Status: Sendable, Hashable {
        /// Queued behind ``SessionManager/maxConcurrentTransfers``: starts by itself.
        case waiting
        /// Running now.
        case running
        /// Held: created with `startsImmediately: false`, or suspended (before or while running);
        /// goes on after ``TransferSnapshot/resume()``.
        case suspended
        /// Being cancelled (or failed from our side): its end is on its way.
        case cancelling
    }

    /// The transfer's identifier.
    public let id: TransferID
    /// Data, upload or download.
    public let kind: TransferKind
    /// Where it stands at the time of the snapshot.
    public let status: Status
    /// The request as given.
    public let originalRequest: URLRequest
    /// The request the current (or next) attempt sends (after redirects followed by re-sending).
    public let currentRequest: URLRequest
    /// The final response head, once received.
    public let response: HTTPURLResponse?
    /// Request body bytes sent so far by the current attempt.
    public let uploadProgress: TransferProgress
    /// Response body bytes so far; for a download, bytes on disk out of the whole file.
    public let downloadProgress: TransferProgress
    /// The manager running it.
    public let manager: SessionManager

    /// Cancels the transfer (as ``TransferHandle/cancel()``). Returns at once.
    public func cancel() {
        manager.cancelTransferLater(id)
    }

    /// Suspends the transfer (as ``TransferHandle/suspend()``, with the same refusal on URLSession).
    public func suspend() async throws(NetworkingError) {
        try await manager.suspendTransfer(id)
    }

    /// Resumes the transfer (as ``TransferHandle/resume()``).
    public func resume() async throws(NetworkingError) {
        try await manager.resumeTransfer(id)
    }
}

extension TransferState {
    /// Data, upload or download: as declared by the call that made it, else from its sink and body.
    var kind: TransferKind {
        if sink is DownloadSink { return .download }
        if let declaredKind { return declaredKind }
        if case .none = upload { return .data }
        return .upload
    }

    /// The status a snapshot reports.
    var snapshotStatus: TransferSnapshot.Status {
        switch machine.status {
        case .waiting: return .waiting
        case .suspended: return .suspended
        case .running: return .running
        case .cancelling, .finished: return .cancelling
        }
    }

    /// Download progress as observers see it: the sink's view (bytes on disk for a download).
    var observedDownloadProgress: TransferProgress {
        sink.observedDownloadProgress(for: self) ?? downloadProgress
    }
}
