import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Invalidation and the session-wide event stream.
extension SessionManager {
    /// Stops accepting transfers and lets running ones finish (URLSession's
    /// `finishTasksAndInvalidate()`); returns once URLSession reports the session invalid.
    ///
    /// Transfers that were held or waiting for a slot never start: they fail with
    /// ``NetworkingError/Kind/sessionInvalidated``. New transfers fail the same way.
    ///
    /// On ``shared`` it does nothing and returns at once, as URLSession's on `URLSession.shared`.
    public func invalidate() async {
        guard !isShared else { return }
        guard lifecycle == .active else { return await waitForInvalidation() }
        lifecycle = .finishing
        invalidateTransfers(cancelRunning: false)
        switch engine {
        case .urlSession: delegateQueue.bypassing { underlyingSession.finishTasksAndInvalidate() }
        case .stubs: completeStubInvalidationIfIdle()
        #if os(Linux) && canImport(CCurlShim)
        case .curl, .curlUnavailable: completeCurlInvalidationIfIdle()
        #endif
        }
        await waitForInvalidation()
    }

    /// Cancels every transfer and invalidates the session (URLSession's `invalidateAndCancel()`);
    /// returns once URLSession reports the session invalid. Every open event stream ends with
    /// ``NetworkingError/Kind/sessionInvalidated``; afterwards ``activeTransferCount`` is zero.
    ///
    /// On ``shared`` it does nothing and returns at once, as URLSession's on `URLSession.shared`:
    /// other code's transfers keep running (``cancelAll(kind:)`` is what cancels them).
    public func invalidateAndCancel() async {
        guard !isShared else { return }
        if lifecycle == .active || lifecycle == .finishing {
            lifecycle = .cancelling
            // URLSession cancels every task itself (invalidateAndCancel); elsewhere each attempt is stopped.
            if case .urlSession = engine {
                for state in transfers.values { state.nextCancel = .none }
            }
            invalidateTransfers(cancelRunning: true)
            for state in transfers.values { state.nextCancel = .now }
            switch engine {
            case .urlSession: delegateQueue.bypassing { underlyingSession.invalidateAndCancel() }
            case .stubs: completeStubInvalidationIfIdle()
            #if os(Linux) && canImport(CCurlShim)
            case .curl, .curlUnavailable: completeCurlInvalidationIfIdle()
            #endif
            }
        }
        await waitForInvalidation()
    }

    /// A stream of session-wide events (transfer resumed, suspended, completed; session
    /// invalidated), replacing AFNetworking's notifications. Each call returns a new, independent
    /// stream that sees events from now on; it finishes after ``SessionEvent/invalidated``.
    ///
    /// - Parameter limit: events kept for a slow reader before the oldest are dropped. Default 4096.
    public func sessionEvents(bufferingNewest limit: Int = 4096) -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: SessionEvent.self, bufferingPolicy: .bufferingNewest(limit))
        guard lifecycle != .invalidated else {
            continuation.yield(.invalidated)
            continuation.finish()
            return stream
        }
        let key = observers.add(continuation)
        continuation.onTermination = { [observers] _ in observers.remove(key) }
        return stream
    }

    func broadcast(_ event: SessionEvent) {
        observers.broadcast(event)
        guard activity.isObserved else { return }
        switch event {
        case .transferResumed(let id, let request): activity.broadcast(.started(id, request))
        case .transferSuspended(let id): activity.broadcast(.suspended(id))
        case .transferCompleted, .invalidated: break // published with more detail elsewhere
        }
    }

    func sessionDidBecomeInvalid(error: (any Error)? = nil) {
        if let error, invalidationError == nil {
            invalidationError = (error as? NetworkingError)
                ?? NetworkingError(.sessionInvalidated, "the session became invalid: \(error)", underlyingError: error)
        }
        // With curl, the manager invalidates its (unused) URLSession itself once idle; the
        // delegate's later report of it finds the work done.
        guard lifecycle != .invalidated else { return }
        lifecycle = .invalidated
        // URLSession has completed every task by now; anything left never had a task.
        endEverything(NetworkingError(.sessionInvalidated, "the session was invalidated"))
    }

    /// Fails every transfer still registered with `reason`, ends every session-event stream and
    /// wakes whoever awaits invalidation. Call with ``lifecycle`` already `.invalidated`.
    func endEverything(_ reason: NetworkingError) {
        for id in scheduler.removeAllWaiting() {
            if let state = transfers[id] { finish(state, .failure(reason.adding(request: state.originalRequest))) }
        }
        for state in transfers.values.sorted(by: { $0.id < $1.id }) {
            let wasRunning = state.phase == .running
            _ = state.machine.sessionDidEnd()
            finish(state, .failure(reason.adding(request: state.originalRequest, response: state.response)), wasRunning: wasRunning)
        }
        publishHeldCompletions()
        observers.finishAll()
        activity.finishAll(invalidationError)
        let waiters = invalidationWaiters
        invalidationWaiters.removeAll()
        for waiter in waiters { waiter.resume() }
    }

    /// Suspends until the session is invalid. The state is checked again inside the continuation's
    /// closure: entering `withUnsafeContinuation` can be a suspension point (measured on the curl
    /// executor: the closure ran as a later job), and a check made before it may be stale by then —
    /// a waiter added after ``endEverything(_:)`` would never be resumed.
    private func waitForInvalidation() async {
        guard lifecycle != .invalidated else { return }
        await withUnsafeContinuation { continuation in
            if lifecycle == .invalidated { return continuation.resume() }
            invalidationWaiters.append(continuation)
        }
    }

    /// Tells every transfer's machine the manager is invalidated: waiting ones (queued first, in
    /// queue order) fail now, no new attempt starts, and with `cancelRunning` running ones stop.
    private func invalidateTransfers(cancelRunning: Bool) {
        let queued = scheduler.removeAllWaiting()
        let queuedSet = Set(queued)
        let order = queued.compactMap { transfers[$0] }
            + transfers.values.filter { !queuedSet.contains($0.id) }.sorted { $0.id < $1.id }
        for state in order { run(state.machine.invalidate(cancelRunning: cancelRunning), for: state) }
    }
}

/// Runs `body` with a new ``SessionManager`` and always shuts it down afterwards with
/// ``SessionManager/invalidateAndCancel()``, whether `body` returns or throws.
///
/// - Parameters:
///   - configuration: the session configuration. Default ``SessionManager/defaultConfiguration()``.
///   - maxConcurrentTransfers: the manager's concurrency limit. Default `nil`.
///   - body: the work; transfers still running when it returns are cancelled.
public func withSessionManager<Result>(
    configuration: URLSessionConfiguration = SessionManager.defaultConfiguration(),
    maxConcurrentTransfers: Int? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (SessionManager) async throws -> Result
) async rethrows -> Result {
    let manager = SessionManager(configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers)
    do {
        let result = try await body(manager)
        await manager.invalidateAndCancel()
        return result
    } catch {
        await manager.invalidateAndCancel()
        throw error
    }
}
