import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The I/O shell around each transfer's ``LiveTransferStateMachine``: the machine decides, this
/// file performs what it returns — starting and stopping attempts, delivering to the sink,
/// asking the hooks, finishing. Everything runs on the manager's executor.
extension SessionManager {
    /// The rules a new transfer's machine runs under.
    func machineConfiguration(for options: TransferOptions) -> LiveTransferStateMachine.Configuration {
        var configuration = LiveTransferStateMachine.Configuration()
        configuration.maxRedirects = RedirectRules.maximumRedirects
        configuration.maxAuthenticationAttempts = maxAuthenticationAttempts
        configuration.maxResponseBytes = options.maxResponseBytes
        configuration.hasResponseHook = hooks.response != nil
        return configuration
    }

    /// Brings the settings that can change while a transfer runs (hooks, the attempt cap) into
    /// its machine before it decides about a head or a challenge.
    func refreshMachineConfiguration(of state: TransferState) {
        state.machine.configuration.hasResponseHook = hooks.response != nil
        state.machine.configuration.maxAuthenticationAttempts = maxAuthenticationAttempts
    }

    /// Performs the machine's actions for `state`, in order. When a delivery fails in the sink,
    /// the transfer is stopped with that error and the rest of the list no longer applies.
    func run(_ actions: [LiveTransferStateMachine.Action], for state: TransferState) {
        for action in actions {
            if let failure = execute(action, for: state) {
                return run(state.machine.cancel(failure), for: state)
            }
        }
    }

    /// One action. Returns the error of a delivery the sink refused.
    private func execute(_ action: LiveTransferStateMachine.Action, for state: TransferState) -> NetworkingError? {
        switch action {
        case .schedule:
            schedule(state)
        case .unschedule:
            scheduler.removeWaiting(state.id)
        case .releaseSlot:
            for next in scheduler.didFinishRunning() { launchAdmitted(next) }
        case .startAttempt(let attempt, let request):
            startAttempt(attempt, sending: request, for: state)
        case .cancelAttempt(let attempt, let armWatchdog):
            guard state.machineAttempt == attempt else { return nil }
            cancelAttempt(of: state)
            if armWatchdog { scheduleCancellationWatchdog(for: state, attempt: attempt) }
        case .pauseAttempt(let attempt):
            if state.machineAttempt == attempt { (state.task as? PausableInPlace)?.setPaused(true) }
        case .resumeAttempt(let attempt):
            if state.machineAttempt == attempt { (state.task as? PausableInPlace)?.setPaused(false) }
        case .resetReceived:
            state.resetReceived()
        case .deliverHead(let head):
            return deliverHead(head, to: state)
        case .deliverBody(let body):
            return deliverBody(body, to: state)
        case .deliverUploadProgress(let bytes):
            reportSent(bytes, for: state)
        case .replay(let attempt, let held):
            for event in held { run(state.machine.replay(attempt, event), for: state) }
        case .decideRedirect(let attempt, let head, let proposal):
            decideRedirect(attempt, head: head, proposal: proposal, for: state)
        case .decideChallenge(let attempt, let head):
            decideChallenge(attempt, head: head, for: state)
        case .refuseChallenge:
            state.challengeAnswer?(.cancelAuthenticationChallenge, nil)
            state.challengeAnswer = nil
            state.challenge = nil
        case .decideResponse(let attempt, let head):
            decideResponse(attempt, head: head, for: state)
        case .becomeDownload:
            guard let target = state.pendingDownload else { return nil }
            state.pendingDownload = nil
            return becomeDownload(state, destination: target.destination, options: target.options)
        case .announceSuspended:
            announce(state, running: false)
        case .announceResumed:
            announce(state, running: true)
        case .pauseLanded:
            pauseLanded(state)
        case .reject:
            break // thrown by suspendTransfer / resumeTransfer before the rest runs
        case .finish(let ending, let wasRunning):
            switch ending {
            case .success:
                if state.sink.wantsProgress, state.bytesReceived == 0 {
                    state.sink.didProgress(state.downloadProgress, upload: false)
                }
                finish(state, .success(state.metrics()), wasRunning: wasRunning)
            case .failure(let reason):
                finish(state, .failure(error(for: reason, of: state)), wasRunning: wasRunning)
            }
        }
        return nil
    }

    /// The error a machine's failure reason stands for.
    func error(for reason: LiveTransferStateMachine.Reason, of state: TransferState) -> NetworkingError {
        let request = state.originalRequest
        switch reason {
        case .cancelled(let failure), .transport(let failure):
            return failure.adding(request: request, response: state.response)
        case .tooManyRedirects(let limit):
            return NetworkingError(.transport(.httpTooManyRedirects), "more than \(limit) redirects", request: request, response: state.response)
        case .responseTooLarge(let limit, let length, let declared):
            let detail = declared ? "Content-Length is \(length)" : "received \(length) bytes"
            return NetworkingError(
                .responseTooLarge(limit: limit), "the response body is larger than \(limit) bytes (\(detail))",
                request: request, response: state.response
            )
        case .noResponse:
            return NetworkingError(.transport(.badServerResponse), "the transfer ended without an HTTP response", request: request)
        case .responseHookCancelled:
            return NetworkingError(.cancelled, "the response hook cancelled the transfer", request: request, response: state.response)
        case .invalidated(let stage):
            switch stage {
            case .beforeStart:
                return NetworkingError(.sessionInvalidated, "the session manager was invalidated before the transfer started", request: request)
            case .beforeRestart:
                return NetworkingError(
                    .sessionInvalidated, "the session manager was invalidated before the transfer could (re)start", request: request
                )
            case .cancelled:
                return NetworkingError(
                    .sessionInvalidated, "the session manager was invalidated and its transfers cancelled",
                    request: request, response: state.response
                )
            case .sessionEnded:
                return NetworkingError(.sessionInvalidated, "the session was invalidated", request: request, response: state.response)
            }
        }
    }

    /// Starts the machine's attempt `attempt` with `request`: what the previous attempt received
    /// and sent is forgotten, and a suspension in place carries over (``launch(_:request:attempt:)``
    /// announces the state, which a new attempt changes only when it starts or resumes the transfer).
    private func startAttempt(_ attempt: TransferAttemptID, sending request: URLRequest, for state: TransferState) {
        if let task = state.task, transfersByAttempt[task.attemptID] === state { transfersByAttempt[task.attemptID] = nil }
        state.task = nil
        state.machineAttempt = attempt
        state.attemptFailure = nil
        state.redirectAnswer = nil
        state.challengeAnswer = nil
        state.challenge = nil
        state.pendingDownload = nil
        state.restartRequested = false
        state.resetReceived()
        state.bytesSent = 0
        state.sequencePump?.stop()
        state.sequencePump = nil
        launch(state, request: request, attempt: attempt)
    }

    /// Stops the current attempt. A URLSession task whose redirect or challenge was just answered
    /// is not cancelled (it ends by itself, and a cancel racing the answer can trap
    /// FoundationNetworking); one the manager re-sends is cancelled in a later job, after the answer.
    private func cancelAttempt(of state: TransferState) {
        let style = state.nextCancel
        state.nextCancel = .now
        switch style {
        case .now:
            state.cancelTask()
        case .none:
            break
        case .afterAnswer:
            guard let attempt = state.machineAttempt else { return }
            let id = state.id
            perform { manager in
                guard let state = manager.transfers[id], state.machineAttempt == attempt else { return }
                state.cancelTask()
            }
        }
    }

    /// The attempt stopped for a pause has ended: the slot is freed and the sink told.
    private func pauseLanded(_ state: TransferState) {
        if let task = state.task, transfersByAttempt[task.attemptID] === state { transfersByAttempt[task.attemptID] = nil }
        state.redirectAnswer = nil
        state.challengeAnswer = nil
        state.resetReceived()
        for id in scheduler.didFinishRunning() { launchAdmitted(id) }
        state.sink.didPause(transfer: state)
        announce(state, running: false)
    }

    /// A transport confirms a cancel within milliseconds; should it ever not, the transfer ends
    /// anyway so no caller waits forever.
    private func scheduleCancellationWatchdog(for state: TransferState, attempt: TransferAttemptID) {
        let id = state.id
        executor.queue.asyncAfter(deadline: .now() + 5) { [weak self] in
            self?.perform { manager in
                guard let state = manager.transfers[id] else { return }
                if let task = state.task, state.machineAttempt == attempt, manager.transfersByAttempt[task.attemptID] === state {
                    manager.transfersByAttempt[task.attemptID] = nil
                }
                let actions = state.machine.cancellationTimedOut(attempt)
                if !actions.isEmpty { manager.cancellationWatchdogFirings += 1 }
                manager.run(actions, for: state)
            }
        }
    }

    /// Delivers the final response head to the sink (and publishes it).
    private func deliverHead(_ head: ResponseHead, to state: TransferState) -> NetworkingError? {
        state.setHead(head, url: head.url ?? state.currentRequest.url)
        state.responseInstant = .now
        state.expectedToReceive = TransferState.expectedBodyLength(of: head, method: state.currentRequest.httpMethod)
        let failure = deliverResponse(to: state)
        restartIfRequested(state)
        return failure
    }

    /// Delivers a body chunk to the sink (and publishes it).
    func deliverBody(_ data: Data, to state: TransferState) -> NetworkingError? {
        if state.firstByteInstant == nil { state.firstByteInstant = .now }
        state.bytesReceived += Int64(data.count)
        if let error = state.sink.didReceive(data: data, for: state) {
            return error.adding(request: state.originalRequest, response: state.response)
        }
        restartIfRequested(state)
        if state.sink.wantsProgress { state.sink.didProgress(state.downloadProgress, upload: false) }
        if activity.isObserved {
            activity.broadcastData(state.id, data)
            publishDownloadProgress(state)
        }
        return nil
    }

    /// A download sink asked for the request to be sent again without `Range`.
    private func restartIfRequested(_ state: TransferState) {
        guard state.restartRequested else { return }
        state.restartRequested = false
        run(state.machine.resendCurrentRequest(), for: state)
    }

    /// Upload progress: `bytes` more were sent by the current attempt.
    private func reportSent(_ bytes: Int64, for state: TransferState) {
        // URLSession's running total can repeat or jump on Linux; the per-call delta is exact.
        state.bytesSent += bytes
        if let expected = state.expectedToSend, state.bytesSent > expected { state.expectedToSend = state.bytesSent }
        if state.sink.wantsProgress { state.sink.didProgress(state.uploadProgress, upload: true) }
        if activity.isObserved { publishUploadProgress(state) }
    }

    /// Ends a transfer exactly once: tells its sink, removes it from the registry, frees its slot
    /// (when it held one, `wasRunning`; by default when it was running), publishes the completion.
    func finish(_ state: TransferState, _ result: Result<TransferMetrics, NetworkingError>, wasRunning: Bool? = nil) {
        let running = wasRunning ?? (state.phase == .running)
        guard state.markFinished() else { return }
        state.machine.phase = .finished
        state.deadlineTimer?.cancel()
        state.deadlineTimer = nil
        state.sequencePump?.stop()
        state.sequencePump = nil
        state.redirectAnswer = nil
        state.challengeAnswer = nil
        if let task = state.task, transfersByAttempt[task.attemptID] === state {
            transfersByAttempt[task.attemptID] = nil
        }
        transfers[state.id] = nil
        if running {
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
