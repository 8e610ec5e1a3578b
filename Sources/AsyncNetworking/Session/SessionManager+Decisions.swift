import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects, authentication challenges, caching and response hooks: the decisions URLSession asks
/// its delegate for, answered from ``SessionHooks`` (async closures run off the executor).
extension SessionManager {
    func taskWillRedirect(
        attemptID: AttemptID, response: HTTPURLResponse, newRequest proposedByTransport: URLRequest,
        completion: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // A task we cancelled (or no longer know, which means we cancelled it) is never answered:
        // answering after a cancel traps FoundationNetworking, and the cancel ends the task anyway.
        guard let state = transfersByAttempt[attemptID], isAwaitingDecision(state, attemptID) else { return }
        var newRequest = proposedByTransport
        if engine.followsRedirects, cookieJar != nil {
            // URLSession reports redirect heads here only: their cookies are stored first. Its
            // proposal copies the jar's `Cookie` of the last attempt; the jar adds the new URL's
            // when answering (answerRedirect).
            storeCookies(from: response, for: state)
            newRequest.setValue(state.currentRequest.value(forHTTPHeaderField: "Cookie"), forHTTPHeaderField: "Cookie")
        }
        if let scheme = RedirectRules.unsupportedScheme(of: newRequest.url) {
            return completion(refuseRedirect(state, scheme: scheme, response: response))
        }
        // The new host's security policy: http under requiresHTTPS, or a policy the transport
        // cannot enforce, stops here (curl checks each attempt's policy again when it starts).
        if refusesRedirect(state, to: newRequest, after: response) { return completion(nil) }
        let proposed = proposedRedirect(newRequest, after: response, for: state)
        // The transfer's own redirect policy (a pipeline request's) refuses before any hook runs.
        guard state.options.redirectPolicy.allows(
            from: response.url ?? state.currentRequest.url, to: proposed.url, followed: state.redirectCount
        ) else { return completion(nil) }
        guard let hook = hooks.redirect else {
            return answerRedirect(follow(proposed, after: response, for: state), task: attemptID, state: state, completion: completion)
        }
        let context = RedirectContext(
            transfer: state.id, originalRequest: state.originalRequest, response: response,
            proposedRequest: proposed, redirectCount: state.redirectCount
        )
        Task {
            let decision = await hook(context)
            // The transfer may have been cancelled while the hook decided: then stay silent.
            guard self.isAwaitingDecision(state, attemptID) else { return }
            self.answerRedirect(decision.flatMap { self.follow($0, after: response, for: state) },
                                task: attemptID, state: state, completion: completion)
        }
    }

    /// Whether URLSession still waits for our answer about this task: it runs, and we have not
    /// cancelled it (for a failure, a cancel or a pause).
    func isAwaitingDecision(_ state: TransferState, _ attemptID: AttemptID) -> Bool {
        state.phase == .running && state.cancellation == nil && !state.isPausing
            && transfersByAttempt[attemptID] === state
    }

    /// The request to propose for a redirect: URLSession's, except that a 307/308 of a request with
    /// a body is the current request (method, headers) sent to the new URL; credentials removed
    /// when the origin changes (``RedirectRules``).
    private func proposedRedirect(_ newRequest: URLRequest, after response: HTTPURLResponse, for state: TransferState) -> URLRequest {
        var proposed = newRequest
        if RedirectRules.keepsMethodAndBody(response.statusCode), state.hasReplayableBody {
            proposed = state.currentRequest
            proposed.url = newRequest.url
        }
        return RedirectRules.stripCredentials(from: proposed, comingFrom: response.url ?? state.currentRequest.url)
    }

    /// Answers URLSession, then — when the manager will re-send the request itself — stops the
    /// current task at once rather than waiting for a server that may never read the body.
    ///
    /// A redirect refused with an error (too many, an unsupported scheme, the target's security
    /// policy) is not cancelled here: FoundationNetworking has read the whole 3xx body before it
    /// asks, and a cancel racing the answer traps it ("not waiting for it"). On a transport that
    /// follows nothing itself the decision stops the attempt at once (`redirectDecided`).
    private func answerRedirect(
        _ request: URLRequest?, task attemptID: AttemptID, state: TransferState,
        completion: @Sendable (URLRequest?) -> Void
    ) {
        // URLSession sends the answer itself: the jar's cookies for the new URL go on it here.
        completion(engine.followsRedirects ? request.map { addingCookies(to: $0, for: state) } : request)
        guard state.resendRequest != nil else { return }
        let id = state.id
        perform { manager in
            guard let state = manager.transfers[id], state.resendRequest != nil,
                  manager.transfersByAttempt[attemptID] === state else { return }
            state.cancelTask()
        }
    }

    /// Follows a redirect under the library's rules. An upload's 307/308 is re-sent by the manager
    /// itself (URLSession on Linux would send the new request without its body): the redirect is
    /// refused and ``relaunch(_:with:)`` sends `request` with the body once this task ends.
    private func follow(_ request: URLRequest, after response: HTTPURLResponse, for state: TransferState) -> URLRequest? {
        if let scheme = RedirectRules.unsupportedScheme(of: request.url) {
            return refuseRedirect(state, scheme: scheme, response: response)
        }
        if refusesRedirect(state, to: request, after: response) { return nil } // a hook may change the host
        state.redirectCount += 1
        publishRedirect(state, response: response, newRequest: request)
        guard RedirectRules.keepsMethodAndBody(response.statusCode), state.hasReplayableBody,
              RedirectRules.sendsBody(request.httpMethod) else {
            // The transport follows with this request: it is the current request from now on, so
            // a later hop's proposal (a 307/308 re-send) starts from it, not from the original
            // request and the credentials it carried for the first origin.
            state.currentRequest = request
            return request
        }
        guard state.redirectCount <= RedirectRules.maximumRedirects else {
            // Refuse the redirect and fail when the task ends: cancelling inside the redirect
            // callback makes FoundationNetworking trap ("not waiting for it").
            if state.cancellation == nil {
                state.cancellation = NetworkingError(
                    .transport(.httpTooManyRedirects), "more than \(RedirectRules.maximumRedirects) redirects",
                    request: state.originalRequest, response: response
                )
            }
            return nil
        }
        var resend = request
        resend.httpBodyStream = nil
        // The body comes from the transfer's upload source; a plain request keeps its own.
        resend.httpBody = { if case .none = state.upload { return state.currentRequest.httpBody } else { return nil } }()
        state.resendRequest = resend
        return nil
    }

    /// Stops at a redirect to anything but http or https: nothing is sent there, and the transfer
    /// fails with ``NetworkingError/Kind/unsupportedScheme(_:)`` when its task ends.
    private func refuseRedirect(_ state: TransferState, scheme: String, response: HTTPURLResponse) -> URLRequest? {
        if state.cancellation == nil {
            state.cancellation = NetworkingError(
                .unsupportedScheme(scheme), "a redirect to a URL that is not http or https was refused",
                request: state.originalRequest, response: response
            )
        }
        return nil
    }

    func taskDidReceive(
        challenge: URLAuthenticationChallenge, attemptID: AttemptID,
        completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // As for redirects: a task we cancelled is never answered (answering after a cancel can trap).
        guard let state = transfersByAttempt[attemptID], isAwaitingDecision(state, attemptID) else { return }
        let method = challenge.protectionSpace.authenticationMethod
        #if canImport(Security)
        // Apple platforms: the manager's SecurityPolicy judges the server (SessionManager+AppleTrust).
        if method == "NSURLAuthenticationMethodServerTrust" {
            return evaluateServerTrust(challenge, for: state, attemptID: attemptID, completion: completion)
        }
        #endif
        // Trust and client-certificate challenges (Apple platforms only) keep the system's handling.
        if method == "NSURLAuthenticationMethodServerTrust" || method == "NSURLAuthenticationMethodClientCertificate" {
            return completion(.performDefaultHandling, nil)
        }
        // A rejected credential is retried forever on Linux: cap the attempts.
        guard max(challenge.previousFailureCount, state.authenticationAttempts) < maxAuthenticationAttempts else {
            return refuse(challenge: completion, for: state)
        }
        if let hook = hooks.challenge {
            let context = ChallengeContext(transfer: state.id, challenge: challenge)
            Task {
                let answer = await hook(context)
                guard self.isAwaitingDecision(state, attemptID) else { return }
                switch answer {
                case .useCredential(let credential): self.accept(credential, challenge: completion, for: state, space: challenge.protectionSpace)
                case .refuse: self.refuse(challenge: completion, for: state)
                }
            }
        } else if let credential = credentials[challenge.protectionSpace.host.lowercased()] {
            accept(credential, challenge: completion, for: state, space: challenge.protectionSpace)
        } else {
            refuse(challenge: completion, for: state)
        }
    }

    func taskWillCache(
        _ proposed: CachedURLResponse, task: any TransportTask,
        completion: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let hook = hooks.cache else { return completion(proposed) }
        Task { completion(await hook(proposed)) }
    }

    /// Runs the response hook while the transfer's later callbacks are held back.
    func decideResponse(_ response: HTTPURLResponse, for state: TransferState, hook: @escaping SessionHooks.Response) {
        let request = state.originalRequest
        let attemptID = state.task?.attemptID
        Task {
            let disposition = await hook(response, request)
            // A late answer — about an attempt since cancelled, paused or replaced — does nothing.
            guard state.phase == .running, state.cancellation == nil, !state.isPausing,
                  state.task?.attemptID == attemptID else { return }
            switch disposition {
            case .allow:
                if let error = self.deliverResponse(to: state) {
                    return dropDeferred(of: state, failingWith: error)
                }
                releaseDeferred(of: state)
            case .becomeDownload(let destination, let options):
                if let error = self.becomeDownload(state, destination: destination, options: options)
                    ?? self.deliverResponse(to: state) {
                    return dropDeferred(of: state, failingWith: error)
                }
                releaseDeferred(of: state)
            case .cancel:
                dropDeferred(of: state, failingWith: NetworkingError(
                    .cancelled, "the response hook cancelled the transfer", request: request, response: response
                ))
            }
        }
    }

    /// Discards the callbacks held back during a decision and fails the transfer. When URLSession's
    /// completion is among them the task has already ended, so no cancel confirmation will ever
    /// come: the transfer finishes now instead of waiting for the cancellation watchdog (5 s).
    func dropDeferred(of state: TransferState, failingWith error: NetworkingError) {
        let taskEnded = state.deferred?.contains { if case .complete = $0 { true } else { false } } ?? false
        state.deferred = nil
        guard taskEnded else { return fail(state, with: error) }
        finish(state, .failure(error.adding(request: state.originalRequest, response: state.response)))
    }

    /// Whether a 401/407 must wait for its challenge: only when a credential might answer it.
    func holdsBackAuthenticationResponse(_ head: ResponseHead, url: URL?) -> Bool {
        let header: String
        switch head.statusCode {
        case 401: header = "WWW-Authenticate"
        case 407: header = "Proxy-Authenticate"
        default: return false
        }
        guard head.contains(header) else { return false }
        if hooks.challenge != nil { return true }
        guard let host = url?.host?.lowercased() else { return false }
        return credentials[host] != nil
    }

    /// Delivers a held-back 401/407 and what followed it: it is the transfer's final response.
    func deliverPendingAuthentication(of state: TransferState) {
        guard state.pendingAuthentication != nil else { return }
        state.pendingAuthentication = nil
        guard state.phase == .running else { return }
        // The 401/407 is the final response: the response hook decides about it like any other
        // (what followed it stays held back until then).
        if let hook = hooks.response, let response = state.response {
            return decideResponse(response, for: state, hook: hook)
        }
        if let error = deliverResponse(to: state) {
            return dropDeferred(of: state, failingWith: error)
        }
        releaseDeferred(of: state)
    }

    private func accept(
        _ credential: URLCredential, challenge completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
        for state: TransferState, space: URLProtectionSpace
    ) {
        if retriesWithScopedCredential(state, credential, space: space) {
            // The retry is a new attempt of ours (see below).
            return completion(.cancelAuthenticationChallenge, nil)
        }
        if state.pendingAuthentication != nil {
            // The retry's response replaces the held-back 401/407 and its body.
            state.pendingAuthentication = nil
            state.deferred = nil
            state.resetReceived()
        }
        completion(.useCredential, credential)
    }

    private func refuse(
        challenge completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
        for state: TransferState
    ) {
        state.refusedChallenge = true
        // `.performDefaultHandling` hangs on Linux and `.useCredential` with nil crashes: cancel.
        completion(.cancelAuthenticationChallenge, nil)
        deliverPendingAuthentication(of: state)
    }

    /// URLSession on Linux answers a challenge by re-sending the request itself: it re-sends a
    /// streamed body (a stream upload, a file upload) from the stream it already read, so the
    /// server gets an empty or truncated body, and the credential it keeps is below our redirect
    /// rules (a redirect after the answered 401 was seen to loop back to the challenged URL until
    /// `.httpTooManyRedirects`). For HTTP Basic from an origin server the manager retries itself
    /// instead, as on curl: a new attempt (with a fresh stream from the transfer's producer), to
    /// which ``launch(_:)`` adds the credential scoped to the challenge's protection space — and to
    /// later attempts to that origin only, never to a redirect elsewhere.
    /// - Returns: whether the retry was arranged (the challenge is then cancelled).
    private func retriesWithScopedCredential(_ state: TransferState, _ credential: URLCredential, space: URLProtectionSpace) -> Bool {
        guard case .urlSession = engine, space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic, !space.isProxy(),
              credential.user != nil, credential.password != nil,
              let scoped = ScopedCredential(credential, space: space) else { return false }
        let resend = state.currentRequest
        state.credential = scoped
        state.authenticationAttempts += 1
        state.pendingAuthentication = nil
        state.deferred = nil
        state.resetReceived()
        state.resendRequest = resend
        return true
    }
}
