import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Listing and acting on live transfers (AFNetworking's `tasks`, `dataTasks`, `uploadTasks`,
/// `downloadTasks`), and cancelling them all while keeping the manager usable.
extension SessionManager {
    /// Every transfer waiting or running (held and suspended ones included), oldest first.
    /// A transfer is listed from the moment its creating call returns until its end was delivered.
    public var tasks: [TransferSnapshot] {
        transfers.values.sorted { $0.id < $1.id }.map(snapshot(of:))
    }

    /// The live data transfers (see ``TransferKind/data``), oldest first.
    public var dataTasks: [TransferSnapshot] { tasks(of: .data) }

    /// The live uploads, oldest first.
    public var uploadTasks: [TransferSnapshot] { tasks(of: .upload) }

    /// The live downloads, oldest first.
    public var downloadTasks: [TransferSnapshot] { tasks(of: .download) }

    /// The live transfers of one kind, and optionally in one status, oldest first.
    public func tasks(of kind: TransferKind, status: TransferSnapshot.Status? = nil) -> [TransferSnapshot] {
        tasks.filter { $0.kind == kind && (status == nil || $0.status == status) }
    }

    /// A snapshot of one transfer, or `nil` once it has ended (or never existed).
    public func snapshot(of id: TransferID) -> TransferSnapshot? {
        transfers[id].map(snapshot(of:))
    }

    /// Cancels every live transfer (of `kind`, when given) — waiting, held, suspended or running —
    /// and keeps the manager usable: transfers created afterwards run as usual (unlike
    /// ``invalidateAndCancel()``). Each cancelled transfer ends with
    /// ``NetworkingError/Kind/cancelled``; returns at once, before they have all ended.
    ///
    /// - Returns: how many transfers were told to cancel.
    @discardableResult
    public func cancelAll(kind: TransferKind? = nil) -> Int {
        let victims = transfers.values.filter { kind == nil || $0.kind == kind }.sorted { $0.id < $1.id }
        for state in victims {
            cancelTransfer(state.id, reason: NetworkingError(.cancelled, "cancelled by cancelAll()"))
        }
        return victims.count
    }

    /// A new activity stream and the transfer's snapshot, taken in the same actor turn.
    func activityAndSnapshot(of id: TransferID) -> (TransferActivityStream, TransferSnapshot?) {
        (transferActivity(bufferingNewest: 1024), snapshot(of: id))
    }

    func snapshot(of state: TransferState) -> TransferSnapshot {
        TransferSnapshot(
            id: state.id, kind: state.kind, status: state.snapshotStatus,
            originalRequest: state.originalRequest, currentRequest: state.currentRequest,
            response: state.response, uploadProgress: state.uploadProgress,
            downloadProgress: state.observedDownloadProgress, manager: self
        )
    }
}
