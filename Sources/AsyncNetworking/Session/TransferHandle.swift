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
        let id = id
        manager.perform { $0.cancelTransfer(id, reason: NetworkingError(.cancelled, "the transfer was cancelled")) }
    }

    /// Holds a transfer that has not started yet (created with `startsImmediately: false`, or waiting
    /// for a slot), so it does not start until ``resume()``.
    ///
    /// - Throws: ``NetworkingError/Kind/unsupportedOperation`` when the transfer is already running:
    ///   URLSession's `suspend()` on Linux drops the connection and silently restarts the body from
    ///   byte 0, so a running data transfer cannot be paused without corrupting it.
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
    func suspendTransfer(_ id: TransferID) throws(NetworkingError) {
        guard let state = transfers[id] else {
            throw NetworkingError(.unsupportedOperation, "\(id) has already finished")
        }
        switch state.phase {
        case .waiting:
            if !state.isHeld {
                state.isHeld = true
                scheduler.removeWaiting(id)
                broadcast(.transferSuspended(id))
            }
        case .running where state.sink.supportsPause:
            state.resumeRequested = false
            pause(state)
        case .running:
            throw NetworkingError(
                .unsupportedOperation,
                "a running data transfer cannot be suspended: URLSession on Linux restarts it from byte 0 on resume",
                request: state.originalRequest
            )
        case .finished:
            throw NetworkingError(.unsupportedOperation, "\(id) has already finished")
        }
    }

    func resumeTransfer(_ id: TransferID) throws(NetworkingError) {
        guard let state = transfers[id] else {
            throw NetworkingError(.unsupportedOperation, "\(id) has already finished")
        }
        if state.phase == .running, state.isPausing {
            // The pause has not landed yet: resume as soon as it does.
            state.resumeRequested = true
            return
        }
        guard state.phase == .waiting, state.isHeld else { return }
        guard lifecycle == .active else {
            throw NetworkingError(.sessionInvalidated, "the session manager was invalidated", request: state.originalRequest)
        }
        state.isHeld = false
        schedule(state)
    }
}
