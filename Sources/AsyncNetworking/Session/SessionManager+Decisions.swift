import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects, authentication challenges, caching and response hooks: the decisions URLSession asks
/// its delegate for, answered from ``SessionHooks`` (async closures run off the executor).
extension SessionManager {
    func taskWillRedirect(
        task: URLSessionTask, response: HTTPURLResponse, newRequest: URLRequest,
        completion: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let state = transfersByTask[task.taskIdentifier] else { return completion(newRequest) }
        guard let hook = hooks.redirect else {
            return completion(follow(newRequest, after: response, for: state))
        }
        let context = RedirectContext(
            transfer: state.id, originalRequest: state.originalRequest, response: response,
            proposedRequest: newRequest, redirectCount: state.redirectCount
        )
        Task {
            let decision = await hook(context)
            completion(decision.flatMap { self.follow($0, after: response, for: state) })
        }
    }

    /// Follows a redirect, except an upload's 307/308: URLSession on Linux would send the new request
    /// without its body, so the redirect is refused and the transfer re-sends method, headers and
    /// body to the new URL itself once this task ends (see ``relaunch(_:with:)``).
    private func follow(_ request: URLRequest, after response: HTTPURLResponse, for state: TransferState) -> URLRequest? {
        state.redirectCount += 1
        guard response.statusCode == 307 || response.statusCode == 308, state.hasReplayableBody else {
            return request
        }
        guard state.redirectCount <= 16 else {
            // Refuse the redirect and fail when the task ends: cancelling inside the redirect
            // callback makes FoundationNetworking trap ("not waiting for it").
            if state.cancellation == nil {
                state.cancellation = NetworkingError(
                    .transport(.httpTooManyRedirects), "more than 16 redirects", request: state.originalRequest, response: response
                )
            }
            return nil
        }
        var resend = state.currentRequest
        resend.url = request.url
        state.resendRequest = resend
        return nil
    }

    func taskDidReceive(
        challenge: URLAuthenticationChallenge, task: URLSessionTask,
        completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        guard let state = transfersByTask[task.taskIdentifier] else {
            return completion(.cancelAuthenticationChallenge, nil)
        }
        let method = challenge.protectionSpace.authenticationMethod
        // Trust and client-certificate challenges (Apple platforms only) keep the system's handling.
        if method == "NSURLAuthenticationMethodServerTrust" || method == "NSURLAuthenticationMethodClientCertificate" {
            return completion(.performDefaultHandling, nil)
        }
        // A rejected credential is retried forever on Linux: cap the attempts.
        guard challenge.previousFailureCount < maxAuthenticationAttempts else {
            return refuse(challenge: completion, for: state)
        }
        if let hook = hooks.challenge {
            let context = ChallengeContext(transfer: state.id, challenge: challenge)
            Task {
                switch await hook(context) {
                case .useCredential(let credential): self.accept(credential, challenge: completion, for: state)
                case .refuse: self.refuse(challenge: completion, for: state)
                }
            }
        } else if let credential = credentials[challenge.protectionSpace.host.lowercased()] {
            accept(credential, challenge: completion, for: state)
        } else {
            refuse(challenge: completion, for: state)
        }
    }

    func taskWillCache(
        _ proposed: CachedURLResponse, task: URLSessionTask,
        completion: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let hook = hooks.cache else { return completion(proposed) }
        Task { completion(await hook(proposed)) }
    }

    /// Runs the response hook while the transfer's later callbacks are held back.
    func decideResponse(_ response: HTTPURLResponse, for state: TransferState, hook: @escaping SessionHooks.Response) {
        let request = state.originalRequest
        Task {
            let disposition = await hook(response, request)
            guard state.phase == .running else { return }
            switch disposition {
            case .allow:
                if let error = state.sink.didReceive(response: response, for: state) {
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
    private func dropDeferred(of state: TransferState, failingWith error: NetworkingError) {
        let taskEnded = state.deferred?.contains { if case .complete = $0 { true } else { false } } ?? false
        state.deferred = nil
        guard taskEnded else { return fail(state, with: error) }
        finish(state, .failure(error.adding(request: state.originalRequest, response: state.response)))
    }

    /// Whether a 401/407 must wait for its challenge: only when a credential might answer it.
    func holdsBackAuthenticationResponse(_ response: HTTPURLResponse) -> Bool {
        let header: String
        switch response.statusCode {
        case 401: header = "WWW-Authenticate"
        case 407: header = "Proxy-Authenticate"
        default: return false
        }
        guard response.value(forHTTPHeaderField: header) != nil else { return false }
        if hooks.challenge != nil { return true }
        guard let host = response.url?.host?.lowercased() else { return false }
        return credentials[host] != nil
    }

    /// Delivers a held-back 401/407 and what followed it: it is the transfer's final response.
    func deliverPendingAuthentication(of state: TransferState) {
        guard let response = state.pendingAuthentication else { return }
        state.pendingAuthentication = nil
        guard state.phase == .running else { return }
        if let error = state.sink.didReceive(response: response, for: state) {
            return dropDeferred(of: state, failingWith: error)
        }
        releaseDeferred(of: state)
    }

    private func accept(
        _ credential: URLCredential, challenge completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void,
        for state: TransferState
    ) {
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
}
