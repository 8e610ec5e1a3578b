import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The manager-wide activity stream: every transfer's start, response, throttled progress,
/// resumption, redirects and completion, and the manager's invalidation.
extension SessionManager {
    /// A stream of what happens to *every* transfer of this manager (AFNetworking's manager-wide
    /// blocks and notifications): see ``TransferActivity``. Each call returns a new, independent
    /// stream that sees events from now on; it finishes after ``TransferActivity/invalidated(_:)``.
    ///
    /// Observing never slows a transfer: events are handed over without waiting, and a reader more
    /// than `limit` events behind loses the oldest (counted in
    /// ``TransferActivityStream/droppedCount``). With no reader, no event is built at all. Progress
    /// is throttled (see ``TransferActivity``), so a large transfer yields about fifty progress
    /// events, not one per chunk. Dropping the stream (or cancelling the task reading it)
    /// unregisters it.
    ///
    /// ```swift
    /// let activity = await manager.transferActivity()
    /// for await event in activity {
    ///     if case .completed(let done) = event { print(done.id, done.response?.statusCode ?? 0, done.error as Any) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - limit: events kept for a slow reader before the oldest are dropped. Default 4096.
    ///   - includingData: also deliver every transfer's response body chunks as
    ///     ``TransferActivity/data(_:_:)`` (AFNetworking's manager-wide
    ///     `setDataTaskDidReceiveDataBlock:`). Default `false`: no chunk is handed to any stream
    ///     unless one asked. Each buffered data event holds its chunk (up to about 64 KiB), so a
    ///     large `limit` with a slow reader holds up to `limit` chunks.
    public func transferActivity(bufferingNewest limit: Int = 4096, includingData: Bool = false) -> TransferActivityStream {
        let (stream, continuation) = AsyncStream.makeStream(of: TransferActivity.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let drops = ActivityDropCounter()
        guard lifecycle != .invalidated else {
            continuation.yield(.invalidated(nil))
            continuation.finish()
            return TransferActivityStream(stream: stream, drops: drops)
        }
        let key = activity.add(continuation, drops: drops, includesData: includingData)
        continuation.onTermination = { [activity] _ in activity.remove(key) }
        return TransferActivityStream(stream: stream, drops: drops)
    }

    // MARK: Publishing (on the executor)

    /// Publishes upload progress, throttled.
    func publishUploadProgress(_ state: TransferState) {
        guard activity.isObserved else { return }
        let progress = state.uploadProgress
        if state.uploadThrottle.shouldPublish(progress, now: .now) {
            activity.broadcast(.uploadProgress(state.id, progress))
        }
    }

    /// Publishes download progress, throttled.
    func publishDownloadProgress(_ state: TransferState) {
        guard activity.isObserved else { return }
        let progress = state.observedDownloadProgress
        if state.downloadThrottle.shouldPublish(progress, now: .now) {
            activity.broadcast(.downloadProgress(state.id, progress))
        }
    }

    /// Hands the final response to the transfer's sink, and publishes it (with a download's
    /// resumption) when the sink took it. Every path that delivers a response goes through here.
    func deliverResponse(to state: TransferState) -> NetworkingError? {
        if let error = state.sink.didReceiveResponse(for: state) { return error }
        guard activity.isObserved, !state.restartRequested, case .running = state.machine.phase, let response = state.response else { return nil }
        activity.broadcast(.response(state.id, response))
        if let resumed = state.sink.lastResumption {
            activity.broadcast(.downloadResumed(state.id, offset: resumed.offset, expectedTotal: resumed.expectedTotal))
        }
        return nil
    }

    /// Posts ``SessionEvent/transferResumed(_:_:)`` or ``SessionEvent/transferSuspended(_:)`` (and
    /// ``TransferActivity/started(_:_:)`` or ``TransferActivity/suspended(_:)``) when the
    /// transfer's state changes, and only then.
    ///
    /// **Rule: events follow state changes** (AFNetworking posts its resume and suspend
    /// notifications on a real change of the task's state). A transfer is announced running when
    /// its first attempt starts and again when it resumes after a pause; suspended when it is held
    /// before starting or paused. A new attempt inside a running transfer — a redirect the Session
    /// layer follows (curl, stubs), a credential retry, a 307/308 or restart re-send — changes
    /// nothing and posts nothing, on every transport; one that starts while the transfer is
    /// suspended in place stays suspended.
    func announce(_ state: TransferState, running: Bool, request: URLRequest? = nil) {
        guard state.announcedRunning != running else { return }
        state.announcedRunning = running
        broadcast(running ? .transferResumed(state.id, request ?? state.currentRequest) : .transferSuspended(state.id))
    }

    /// Publishes a followed redirect.
    func publishRedirect(_ state: TransferState, response: HTTPURLResponse, newRequest: URLRequest) {
        guard activity.isObserved else { return }
        activity.broadcast(.redirected(state.id, response: response, newRequest: newRequest))
    }

    /// Publishes a transfer's end (``SessionEvent/transferCompleted(_:_:)`` and
    /// ``TransferActivity/completed(_:)``) — at once, or, for a transfer of an ``HTTPClient`` call
    /// (``TransferOptions/completionHold``), when the call has settled the outcome its caller saw.
    func publishEnd(_ state: TransferState, error: NetworkingError?, metrics: TransferMetrics?) {
        guard let hold = state.options.completionHold else {
            broadcast(.transferCompleted(state.id, error))
            if activity.isObserved { publishCompletion(state, error: error, metrics: metrics) }
            return
        }
        if activity.isObserved { publishFinalProgress(state) }
        let completion = makeCompletion(state, error: error, metrics: metrics)
        // Settled already (its caller may know): published in this job, before any invalidation
        // the caller asks for; else when the call settles (CompletionHold), or at invalidation.
        let id = state.id
        let outcome = HeldOutcome()
        let settled = hold.transferEnded(id) { [weak self] settled in
            outcome.set(settled) // visible at once, before the caller is told
            self?.perform { $0.publishHeld(id) }
        }
        if let settled { return publish(completion.settled(settled)) }
        heldCompletions[id] = (completion, outcome)
    }

    /// Publishes the held completion of transfer `id` with its call's outcome, unless it was
    /// published already (at invalidation).
    private func publishHeld(_ id: TransferID) {
        guard let held = heldCompletions.removeValue(forKey: id) else { return }
        publish(held.completion.settled(held.outcome.value ?? .transport))
    }

    /// Publishes the completions still waiting for their call's job when the streams end (at
    /// invalidation), so none is lost: with the call's outcome when it settled already (its
    /// caller may know it), else the transfer's own (the call has told its caller nothing yet).
    func publishHeldCompletions() {
        for id in heldCompletions.keys.sorted() { publishHeld(id) }
    }

    /// Publishes both completion events of `completion`.
    func publish(_ completion: TransferCompletion) {
        broadcast(.transferCompleted(completion.id, completion.error))
        activity.broadcast(.completed(completion))
    }

    /// Publishes a transfer's end: first the progress the throttle held back (so the last progress
    /// event reports every byte), then the completion.
    func publishCompletion(_ state: TransferState, error: NetworkingError?, metrics: TransferMetrics?) {
        guard activity.isObserved else { return }
        publishFinalProgress(state)
        activity.broadcast(.completed(makeCompletion(state, error: error, metrics: metrics)))
    }

    /// The progress the throttle held back, so the last progress event reports every byte.
    private func publishFinalProgress(_ state: TransferState) {
        let upload = state.uploadProgress
        if upload.completedBytes > 0 || (upload.expectedBytes ?? 0) > 0, state.uploadThrottle.final(upload) {
            activity.broadcast(.uploadProgress(state.id, upload))
        }
        let download = state.observedDownloadProgress
        if state.response != nil || download.completedBytes > 0, state.downloadThrottle.final(download) {
            activity.broadcast(.downloadProgress(state.id, download))
        }
    }

    /// The completion of `state` as the transfer ended.
    private func makeCompletion(_ state: TransferState, error: NetworkingError?, metrics: TransferMetrics?) -> TransferCompletion {
        TransferCompletion(
            id: state.id, kind: state.kind, originalRequest: state.originalRequest,
            response: error?.response ?? state.sink.completedResponse ?? state.response,
            fileURL: error == nil ? state.sink.completedFileURL : nil, error: error, metrics: metrics
        )
    }

    /// Publishes a completion decided off the executor (a download copied across file systems),
    /// through `hold` when the transfer belongs to an ``HTTPClient`` call.
    nonisolated func publishLater(_ completion: TransferCompletion, hold: CompletionHold? = nil) {
        guard let hold else { return perform { $0.publish(completion) } }
        let settled = hold.transferEnded(completion.id) { [weak self] outcome in
            self?.perform { $0.publish(completion.settled(outcome)) }
        }
        if let settled { perform { $0.publish(completion.settled(settled)) } }
    }
}

/// The outcome a held completion's call settled (``CompletionHold``), set from the settling
/// thread before the call tells its caller, read on the manager's executor. Thread-safe.
final class HeldOutcome: Sendable {
    private let box = SanitizedMutex<CompletionHold.Outcome?>(nil)
    var value: CompletionHold.Outcome? { box.withLock { $0 } }
    func set(_ outcome: CompletionHold.Outcome) { box.withLock { $0 = outcome } }
}
