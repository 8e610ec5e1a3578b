import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Registering, starting, cancelling and finishing transfers: the only code that changes the registry.
extension SessionManager {
    /// Validates and registers a transfer, and starts it unless it is held or must wait for a slot.
    /// The sink is attached before any URLSession task exists, so no event can be missed.
    func register(
        _ request: URLRequest, id: TransferID? = nil, upload: UploadSource, options: TransferOptions,
        makeSink: (TransferID) -> any TransferSink
    ) throws(NetworkingError) -> TransferState {
        try RequestValidation.validate(request)
        guard lifecycle == .active else {
            throw NetworkingError(.sessionInvalidated, "the session manager was invalidated", request: request)
        }
        let id = id ?? nextTransferID()
        let state = TransferState(id: id, request: request, upload: upload, options: options, sink: makeSink(id))
        // The configuration's headers become request headers now, under the redirect rules.
        state.currentRequest = configurationHeaders.applied(to: request)
        transfers[id] = state
        if !state.isHeld { schedule(state) }
        return state
    }

    /// Reserves the next transfer identifier.
    nonisolated func nextTransferID() -> TransferID {
        TransferID(rawValue: lastTransferID.add(1, ordering: .relaxed).newValue)
    }

    /// Starts the transfer now or queues it behind the concurrency limit.
    func schedule(_ state: TransferState) {
        if parkUntilReachable(state) { return }
        if scheduler.admit(state.id, priority: state.options.priority) {
            launch(state)
        }
    }

    /// Starts a transfer the scheduler admitted from its queue.
    func launchAdmitted(_ id: TransferID) {
        guard let state = transfers[id], state.phase == .waiting else {
            // Finished while waiting: give the slot back.
            for next in scheduler.didFinishRunning() { launchAdmitted(next) }
            return
        }
        launch(state)
    }

    /// Creates and resumes the URLSession task for an admitted transfer.
    ///
    /// Every URLSession task is created here, and only while the manager is active: a task created
    /// on an invalidated session is a fatal error in FoundationNetworking, so a re-send (a 307/308,
    /// a download restarting without `Range`, a resume) after `invalidate()` fails instead with
    /// ``NetworkingError/Kind/sessionInvalidated``.
    func launch(_ state: TransferState) {
        let request: URLRequest
        let fileLength: Int64?
        let policy: SecurityPolicy
        do throws(NetworkingError) {
            guard lifecycle == .active else {
                throw NetworkingError(.sessionInvalidated, "the session manager was invalidated before the transfer could (re)start")
            }
            fileLength = try Self.checkUploadSource(state.upload, request: state.originalRequest)
            try makeBodyStream(for: state)
            // An answered challenge's credential goes only to its own origin (CredentialScope).
            let launching = state.credential?.applied(to: state.currentRequest) ?? state.currentRequest
            // The cookie jar's `Cookie` for this attempt's URL (SessionManager+Cookies).
            let withCookies = addingCookies(to: launching, for: state)
            request = try state.sink.request(forLaunching: withCookies, transfer: state)
            // Every attempt (a redirect's, a retry's) is judged by its own host's policy.
            policy = try securityPolicy(checking: request)
        } catch {
            // It counts as running for the scheduler until finished.
            state.phase = .running
            return finish(state, .failure(error.adding(request: state.originalRequest, response: state.response)))
        }
        switch engine {
        case .urlSession:
            _ = policy // checked above: only what URLSession does by itself gets here
            let task = delegateQueue.bypassing { makeTask(for: state, request: request, fileLength: fileLength ?? 0) }
            transfersByAttempt[task.attemptID] = state
            state.didStart(task, gate: delegateQueue)
            delegateQueue.bypassing { task.resume() }
        case .stubs(let stubs):
            _ = policy // stubs make no TLS connection; a policy curl alone enforces failed above
            let attempt = startStubAttempt(state, request: request, fileLength: fileLength ?? 0, on: stubs)
            transfersByAttempt[attempt.attemptID] = state
            state.didStart(attempt, gate: nil)
        #if os(Linux) && canImport(CCurlShim)
        case .curl(let curl):
            do throws(NetworkingError) {
                let attempt = try startCurlAttempt(state, request: request, fileLength: fileLength ?? 0, policy: policy, on: curl)
                transfersByAttempt[attempt.attemptID] = state
                state.didStart(attempt, gate: nil)
            } catch {
                state.phase = .running
                return finish(state, .failure(error.adding(request: state.originalRequest, response: state.response)))
            }
        case .curlUnavailable(let message):
            state.phase = .running
            return finish(state, .failure(NetworkingError(.transportUnavailable, message, request: state.originalRequest)))
        #endif
        }
        broadcast(.transferResumed(state.id, request))
    }

    /// A file upload's file must still be there when its task starts (it may have gone while the
    /// transfer waited for a slot, was held, or before a 307/308 re-send): sending it as an empty
    /// body would look like success.
    /// - Returns: the file's length for a file upload, else `nil`.
    static func checkUploadSource(_ upload: UploadSource, request: URLRequest) throws(NetworkingError) -> Int64? {
        guard case .file(let url) = upload else { return nil }
        guard let length = TransferFiles.size(of: url) else {
            throw NetworkingError(.fileReadFailed, "the file to upload is gone: \(url.path)", request: request, fileURL: url)
        }
        return length
    }

    /// Asks a streamed upload's producer for this attempt's stream (the first, or a fresh one after
    /// a 307/308 or a challenge): AFNetworking's `taskNeedNewBodyStream`.
    func makeBodyStream(for state: TransferState) throws(NetworkingError) {
        guard case .stream(let body) = state.upload else { return }
        guard let stream = body.makeInputStream() else {
            throw NetworkingError(
                .bodyStreamNotReplayable,
                body.streamsMade > 1
                    ? "the request body had to be sent again and its producer could not make a new stream"
                    : "the body stream producer made no stream",
                request: state.originalRequest
            )
        }
        state.pendingBodyStream = stream
    }

    /// Stops a running transfer's task so it can continue later (only for sinks that support it).
    func pause(_ state: TransferState) {
        guard state.phase == .running, !state.isPausing, state.cancellation == nil else { return }
        state.isPausing = true
        // The attempt already ended while a decision held its completion back: no cancel
        // confirmation will come, so the pause lands now.
        if state.attemptEnded { return didPause(state) }
        state.cancelTask()
    }

    /// The task stopped for a pause has ended: the transfer waits, held, and frees its slot.
    func didPause(_ state: TransferState) {
        if let task = state.task { transfersByAttempt[task.attemptID] = nil }
        state.isPausing = false
        state.deferred = nil
        state.pendingAuthentication = nil
        state.refusedChallenge = false
        state.challengePending = false
        state.phase = .waiting
        state.isHeld = true
        state.resetReceived()
        for id in scheduler.didFinishRunning() { launchAdmitted(id) }
        state.sink.didPause(transfer: state)
        broadcast(.transferSuspended(state.id))
        guard lifecycle == .active else {
            // Invalidated while the pause landed: no new attempt will start, and the transfer
            // must not keep `invalidate()` waiting for it.
            return finish(state, .failure(NetworkingError(
                .sessionInvalidated, "the session manager was invalidated before the transfer could (re)start",
                request: state.originalRequest
            )))
        }
        if state.resumeRequested {
            state.resumeRequested = false
            state.isHeld = false
            schedule(state)
        }
    }

    /// Starts a new task for the same transfer at once, keeping its slot (an upload's 307/308).
    func relaunch(_ state: TransferState, with request: URLRequest) {
        if let task = state.task { transfersByAttempt[task.attemptID] = nil }
        state.currentRequest = request
        state.deferred = nil
        state.pendingAuthentication = nil
        state.refusedChallenge = false
        state.resetReceived()
        state.bytesSent = 0
        launch(state)
        // A suspension in place holds across attempts (a followed redirect, a credential retry):
        // the new attempt starts paused, until `resume()`.
        if state.isSuspendedInPlace, state.phase == .running, let task = state.task as? PausableInPlace {
            task.setPaused(true)
            broadcast(.transferSuspended(state.id))
        } else {
            state.isSuspendedInPlace = false
        }
    }

    /// Cancels a transfer for `reason`: at once if it never started, else by cancelling its URLSession
    /// task (the transfer finishes when URLSession confirms, within milliseconds).
    func cancelTransfer(_ id: TransferID, reason: NetworkingError) {
        guard let state = transfers[id] else { return }
        switch state.phase {
        case .waiting:
            finish(state, .failure(reason.adding(request: state.originalRequest)))
        case .running:
            if state.cancellation == nil { state.cancellation = reason }
            if state.deferred?.contains(where: { if case .complete = $0 { true } else { false } }) == true {
                // The task already ended while a decision held its callbacks back: no cancel
                // confirmation will come, so the transfer ends now.
                state.deferred = nil
                state.pendingAuthentication = nil
                return finish(state, .failure(reason.adding(request: state.originalRequest, response: state.response)))
            }
            state.cancelTask()
            scheduleCancellationWatchdog(for: state)
        case .finished:
            break
        }
    }

    /// Fails a running transfer from our side (a limit, a sink error) and stops its URLSession task.
    func fail(_ state: TransferState, with error: NetworkingError) {
        cancelTransfer(state.id, reason: error)
    }

    /// URLSession confirms a cancel within milliseconds; should it ever not, finish the transfer
    /// anyway so no caller waits forever.
    private func scheduleCancellationWatchdog(for state: TransferState) {
        guard let task = state.task else { return }
        let attemptID = task.attemptID
        let id = state.id
        executor.queue.asyncAfter(deadline: .now() + 5) { [weak self] in
            self?.perform { manager in
                guard let stuck = manager.transfersByAttempt[attemptID], stuck.id == id else { return }
                manager.transfersByAttempt[attemptID] = nil
                manager.finish(stuck, .failure(stuck.cancellation ?? NetworkingError(.cancelled)))
            }
        }
    }

    /// Ends a transfer exactly once: tells its sink, removes it from the registry, frees its slot,
    /// publishes the completion.
    func finish(_ state: TransferState, _ result: Result<TransferMetrics, NetworkingError>) {
        guard state.phase != .finished else { return }
        let wasRunning = state.phase == .running
        state.phase = .finished
        state.deferred = nil
        if let task = state.task, transfersByAttempt[task.attemptID] === state {
            transfersByAttempt[task.attemptID] = nil
        }
        transfers[state.id] = nil
        if wasRunning {
            for id in scheduler.didFinishRunning() { launchAdmitted(id) }
        } else {
            scheduler.removeWaiting(state.id)
        }
        // The session event carries what the caller saw, which can differ from the transport's
        // result (a download whose status or file move failed).
        if case .now(let error) = state.sink.didFinish(result, for: state) {
            publishEnd(state, error: error, metrics: try? result.get())
        }
        #if os(Linux) && canImport(CCurlShim)
        if lifecycle != .active { completeCurlInvalidationIfIdle() }
        #endif
        if lifecycle != .active { completeStubInvalidationIfIdle() }
    }
}
