import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which direction of a transfer a `Foundation.Progress` follows.
public enum ProgressDirection: Sendable, Hashable {
    /// Request body bytes sent (AFNetworking's `uploadProgressForTask:`).
    case upload
    /// Response body bytes received, or a download's bytes on disk (`downloadProgressForTask:`).
    case download
}

/// `Foundation.Progress` for code that already binds UI or logging to it (AFNetworking's
/// `uploadProgressForTask:` / `downloadProgressForTask:`).
///
/// `Progress` is not `Sendable` on Linux, so the manager never holds one: you create it, and a task
/// of yours feeds it from the manager's activity stream, in *your* isolation (the main actor, or
/// whatever actor calls ``TransferHandle/bind(_:direction:isolation:)``). Its cancel, pause and
/// resume act on the transfer through handlers that capture only the manager and the transfer id.
extension TransferHandle {
    /// Feeds `progress` with a transfer's progress until the transfer ends, and makes the
    /// progress's `cancel()`, `pause()` and `resume()` cancel, suspend and resume the transfer.
    ///
    /// Suspends until the transfer ends (or the calling task is cancelled, which stops the feeding
    /// and leaves the transfer alone). `totalUnitCount` is the expected byte count (`-1` while
    /// unknown), `completedUnitCount` the bytes so far; updates are throttled like the activity
    /// stream's (about fifty per transfer), and on success the progress ends complete. All
    /// mutations of `progress` happen in the caller's isolation, so it is safe to bind one that a
    /// UI observes from the main actor. `isPausable` is `true` where ``TransferHandle/suspend()``
    /// works (a download, or any transfer on the curl transport); a pause or resume the manager
    /// refuses is ignored. A transfer that already ended leaves `progress` complete.
    ///
    /// ```swift
    /// let progress = Progress(totalUnitCount: -1)
    /// let handle = try await manager.downloadTask(with: request)
    /// Task { @MainActor in await handle.bind(progress) }     // a task you own
    /// progress.pause(); progress.resume(); progress.cancel() // act on the transfer
    /// ```
    public func bind(
        _ progress: Progress, direction: ProgressDirection = .download,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        await ProgressBinding.run(progress, manager: manager, id: id, direction: direction)
    }
}

extension TransferSnapshot {
    /// Feeds `progress` from this transfer; see ``TransferHandle/bind(_:direction:isolation:)``.
    public func bind(
        _ progress: Progress, direction: ProgressDirection = .download,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        await ProgressBinding.run(progress, manager: manager, id: id, direction: direction)
    }
}

/// The loop behind `bind`: runs in the caller's isolation, so `progress` never crosses one.
enum ProgressBinding {
    static func run(
        _ progress: Progress, manager: SessionManager, id: TransferID, direction: ProgressDirection,
        isolation: isolated (any Actor)? = #isolation
    ) async {
        // One actor turn: no event falls between the snapshot and the stream.
        let (activity, snapshot) = await manager.activityAndSnapshot(of: id)
        guard let snapshot else {
            Self.complete(progress)
            return
        }
        progress.isCancellable = true
        progress.cancellationHandler = {
            manager.perform { $0.cancelTransfer(id, reason: NetworkingError(.cancelled, "the transfer's Progress was cancelled")) }
        }
        progress.isPausable = snapshot.kind == .download || manager.transport == .curl
        progress.pausingHandler = { Task { try? await manager.suspendTransfer(id) } }
        progress.resumingHandler = { Task { try? await manager.resumeTransfer(id) } }
        Self.apply(direction == .upload ? snapshot.uploadProgress : snapshot.downloadProgress, to: progress)
        for await event in activity {
            switch event {
            case .uploadProgress(id, let value) where direction == .upload:
                Self.apply(value, to: progress)
            case .downloadProgress(id, let value) where direction == .download:
                Self.apply(value, to: progress)
            case .completed(let completion) where completion.id == id:
                if completion.error == nil { Self.complete(progress) }
                return
            case .invalidated:
                return
            default:
                continue
            }
        }
    }

    private static func apply(_ value: TransferProgress, to progress: Progress) {
        progress.totalUnitCount = value.expectedBytes ?? -1
        progress.completedUnitCount = value.completedBytes
    }

    /// Marks `progress` finished: `completedUnitCount == totalUnitCount`, at least 1.
    private static func complete(_ progress: Progress) {
        let total = max(progress.totalUnitCount, progress.completedUnitCount, 1)
        progress.totalUnitCount = total
        progress.completedUnitCount = total
    }
}
