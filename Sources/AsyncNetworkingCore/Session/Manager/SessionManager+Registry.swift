import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Registering, starting, cancelling and finishing transfers: the only code that changes the registry.
extension SessionManager {
    /// Validates and registers a transfer, and starts it unless it is held or must wait for a slot.
    /// The sink is attached before any transport attempt exists, so no event can be missed.
    func register(
        _ request: URLRequest, id: TransferID? = nil, upload: UploadSource, options: TransferOptions,
        makeSink: (TransferID) -> any TransferSink
    ) throws(NetworkingError) -> TransferState {
        try RequestValidation.validate(request)
        // The configuration's fields pass the one header rule here, before they are merged: a
        // URLRequest would drop a value with CR, LF or NUL without a word.
        if let problem = configurationHeaders.problem {
            throw NetworkingError(.requestSerializationFailed, "the configuration's httpAdditionalHeaders: \(problem); nothing was sent", request: request)
        }
        guard lifecycle == .active else {
            throw NetworkingError(.sessionInvalidated, "the session manager was invalidated", request: request)
        }
        let deadline = try Self.deadline(of: options, request: request)
        let id = id ?? nextTransferID()
        let state = TransferState(
            id: id, request: request, upload: upload, options: options, sink: makeSink(id),
            configuration: machineConfiguration(for: options)
        )
        // The configuration's headers become request headers now, under the redirect rules.
        state.currentRequest = configurationHeaders.applied(to: request)
        state.deadline = deadline
        transfers[id] = state
        armDeadline(of: state)
        run(state.machine.start(), for: state)
        return state
    }

    /// Reserves the next transfer identifier.
    nonisolated func nextTransferID() -> TransferID {
        TransferID(rawValue: lastTransferID.add(1, ordering: .relaxed).newValue)
    }

    /// Starts the transfer now or queues it behind the concurrency limit (or parks it until the
    /// network is reachable).
    func schedule(_ state: TransferState) {
        if parkUntilReachable(state) { return }
        if scheduler.admit(state.id, priority: state.options.priority) {
            run(state.machine.admitted(), for: state)
        }
    }

    /// Starts a transfer the scheduler admitted from its queue.
    func launchAdmitted(_ id: TransferID) {
        guard let state = transfers[id] else {
            // Finished while waiting: give the slot back.
            for next in scheduler.didFinishRunning() { launchAdmitted(next) }
            return
        }
        run(state.machine.admitted(), for: state)
    }

    /// Creates and starts the transport attempt `attempt` of a transfer, sending `request`.
    ///
    /// Every transport attempt is created here, and only while the manager is active: a task
    /// created on an invalidated session is a fatal error in FoundationNetworking, so a re-send (a
    /// 307/308, a download restarting without `Range`, a resume) after `invalidate()` fails
    /// instead with ``NetworkingError/Kind/sessionInvalidated``. A failure to start is the
    /// attempt's failure.
    func launch(_ state: TransferState, request current: URLRequest, attempt: TransferAttemptID) {
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
            let launching = state.credential?.applied(to: current) ?? current
            // The cookie jar's `Cookie` for this attempt's URL (SessionManager+Cookies).
            let withCookies = try addingCookies(to: launching, for: state)
            request = try state.sink.request(forLaunching: withCookies, transfer: state)
            // A body stream that is not the transfer's own (a hook's request) is never sent
            // without its bytes on one transport and with them on another: refused on all.
            if case .none = state.upload, request.httpBodyStream != nil {
                throw NetworkingError(
                    .unsupportedOperation,
                    "a request with an httpBodyStream reached the transport outside the transfer's body (set by a hook?): it cannot be sent whole",
                    request: request
                )
            }
            // The request is final: every field, whatever set it, passes the one header rule.
            try RequestValidation.validateHeaderFields(of: request, original: state.originalRequest)
            // Every attempt (a redirect's, a retry's) is judged by its own host's policy.
            policy = try securityPolicy(checking: request)
            // A proxy the environment made mandatory but cannot be used refuses the attempt.
            if let url = request.url, let refusal = proxy.refusal(for: url) { throw refusal.adding(request: state.originalRequest) }
        } catch {
            return failToStart(state, attempt, error)
        }
        switch engine {
        case .urlSession:
            _ = policy // checked above: only what URLSession does by itself gets here
            let task = delegateQueue.bypassing { makeTask(for: state, request: request, fileLength: fileLength ?? 0) }
            transfersByAttempt[task.attemptID] = state
            state.didStart(task, attempt: attempt, gate: delegateQueue)
            delegateQueue.bypassing { task.resume() }
        case .stubs(let stubs):
            _ = policy // stubs make no TLS connection; a policy curl alone enforces failed above
            let started = startStubAttempt(state, request: request, fileLength: fileLength ?? 0, on: stubs)
            transfersByAttempt[started.attemptID] = state
            state.didStart(started, attempt: attempt, gate: nil)
        #if os(Linux) && canImport(CCurlShim)
        case .curl(let curl):
            do throws(NetworkingError) {
                let started = try startCurlAttempt(state, request: request, fileLength: fileLength ?? 0, policy: policy, on: curl)
                transfersByAttempt[started.attemptID] = state
                state.didStart(started, attempt: attempt, gate: nil)
            } catch {
                return failToStart(state, attempt, error)
            }
        case .curlUnavailable(let message):
            return failToStart(state, attempt, NetworkingError(.transportUnavailable, message, request: state.originalRequest))
        #endif
        }
        // Running now — unless the transfer is suspended in place, which the new attempt keeps.
        announce(state, running: !(state.machine.isSuspendedInPlace && state.task is PausableInPlace), request: request)
    }

    /// An attempt that could not start ends with that error.
    private func failToStart(_ state: TransferState, _ attempt: TransferAttemptID, _ error: NetworkingError) {
        state.attemptFailure = error.adding(request: state.originalRequest, response: state.response)
        run(state.machine.attemptCompleted(attempt, .failed(state.attemptFailure!)), for: state)
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

    /// Cancels a transfer for `reason`: at once if it never started, else by stopping its
    /// attempt (the transfer finishes when the transport confirms, within milliseconds).
    func cancelTransfer(_ id: TransferID, reason: NetworkingError) {
        guard let state = transfers[id] else { return }
        run(state.machine.cancel(reason), for: state)
    }

    /// Fails a running transfer from our side (a limit, a sink error) and stops its attempt.
    func fail(_ state: TransferState, with error: NetworkingError) {
        cancelTransfer(state.id, reason: error)
    }
}
