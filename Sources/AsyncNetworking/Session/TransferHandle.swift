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
        case .running where state.task is PausableInPlace:
            guard !state.isSuspendedInPlace else { return }
            state.isSuspendedInPlace = true
            (state.task as? PausableInPlace)?.setPaused(true)
            broadcast(.transferSuspended(id))
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
        if state.phase == .running, state.isSuspendedInPlace {
            state.isSuspendedInPlace = false
            (state.task as? PausableInPlace)?.setPaused(false)
            broadcast(.transferResumed(id, state.currentRequest))
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
