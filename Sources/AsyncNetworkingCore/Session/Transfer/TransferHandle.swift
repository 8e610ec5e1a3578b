import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running (or waiting) transfer: its identity, its event stream, and its controls.
///
/// The handle is a `Sendable` value; copies refer to the same transfer. Keep it (or its
/// ``events``) while you want the transfer: when the handle, every copy of its events and every
/// iterator are gone before the transfer ends, it is cancelled (the stream was abandoned).
public struct TransferHandle: Sendable, Identifiable {
    /// The transfer's stable identifier.
    public let id: TransferID
    /// The request as given when the transfer was created.
    public let originalRequest: URLRequest
    /// The manager running the transfer.
    public let manager: SessionManager
    let lifetime: ConsumerLifetime

    /// The transfer's events: progress, response, data chunks, completion. Iterate once.
    public var events: TransferEvents { TransferEvents(lifetime: lifetime) }

    /// Cancels the transfer. Returns at once; the event stream then throws
    /// ``NetworkingError/Kind/cancelled``. Cancelling a finished transfer does nothing.
    public func cancel() {
        manager.cancelTransferLater(id)
    }

    /// Suspends the transfer until ``resume()``.
    ///
    /// - A transfer that has not started (created with `startsImmediately: false`, or waiting for a
    ///   slot) is held and does not start until resumed.
    /// - A running download is paused by ending its connection; ``resume()`` continues it with a
    ///   `Range` request, on either transport.
    /// - A running data transfer or upload on the curl transport pauses in place (libcurl's
    ///   `curl_easy_pause`): nothing more is read or sent, the server feels TCP back-pressure, the
    ///   connection stays, and paused time does not count against the idle timeout.
    ///
    /// - Throws: ``NetworkingError/Kind/unsupportedOperation`` for a running data transfer on the
    ///   URLSession transport: URLSession's `suspend()` on Linux drops the connection and silently
    ///   restarts the body from byte 0, so it cannot be paused without corrupting it.
    public func suspend() async throws(NetworkingError) {
        try await manager.suspendTransfer(id)
    }

    /// Starts a held transfer (or queues it behind the concurrency limit). Resuming a running
    /// transfer does nothing.
    ///
    /// - Throws: ``NetworkingError/Kind/unsupportedOperation`` when the transfer has already finished,
    ///   ``NetworkingError/Kind/sessionInvalidated`` when the manager was invalidated.
    public func resume() async throws(NetworkingError) {
        try await manager.resumeTransfer(id)
    }
}

extension SessionManager {
    /// Cancels transfer `id` on the manager's executor, from any context; returns at once. Does
    /// nothing when it has already finished.
    nonisolated func cancelTransferLater(_ id: TransferID) {
        perform { $0.cancelTransfer(id, reason: NetworkingError(.cancelled, "the transfer was cancelled")) }
    }

    func suspendTransfer(_ id: TransferID) throws(NetworkingError) {
        guard let state = transfers[id] else {
            throw NetworkingError(.unsupportedOperation, "\(id) has already finished")
        }
        // A download restarts with `Range`; curl pauses any other transfer in place; a data
        // transfer on URLSession cannot be paused without corrupting it.
        let style: LiveTransferStateMachine.SuspendStyle =
            state.sink.supportsPause ? .restart : state.task is PausableInPlace ? .inPlace : .unsupported
        try runControl(state.machine.suspend(style), for: state)
    }

    func resumeTransfer(_ id: TransferID) throws(NetworkingError) {
        guard let state = transfers[id] else {
            throw NetworkingError(.unsupportedOperation, "\(id) has already finished")
        }
        try runControl(state.machine.resume(), for: state)
    }

    /// Runs a control's actions, or throws the rejection the machine returned instead.
    private func runControl(_ actions: [LiveTransferStateMachine.Action], for state: TransferState) throws(NetworkingError) {
        if case .reject(let rejection)? = actions.first {
            switch rejection {
            case .finished:
                throw NetworkingError(.unsupportedOperation, "\(state.id) has already finished")
            case .unsupported:
                throw NetworkingError(
                    .unsupportedOperation,
                    "a running data transfer cannot be suspended: URLSession on Linux restarts it from byte 0 on resume",
                    request: state.originalRequest
                )
            case .invalidated:
                throw NetworkingError(.sessionInvalidated, "the session manager was invalidated", request: state.originalRequest)
            }
        }
        run(actions, for: state)
    }
}
