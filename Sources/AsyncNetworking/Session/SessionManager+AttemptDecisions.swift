import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirects and challenges on a transport that follows no redirect and answers no challenge
/// itself (curl, stubs): the transport reports the 3xx or 401/407 head, and the same rules
/// URLSession's delegate calls go through decide; following or retrying is a new attempt.
extension SessionManager {
    /// A redirect head goes to the redirect rules (held back with what follows until decided).
    /// - Returns: whether `head` was a redirect the rules now decide.
    func startsRedirectDecision(_ head: ResponseHead, for state: TransferState, attempt id: AttemptID) -> Bool {
        let url = head.url ?? state.currentRequest.url
        guard state.deferred == nil, state.cancellation == nil,
              let proposal = RedirectRules.proposedRequest(after: head, url: url, for: state.currentRequest)
        else { return false }
        // Hold the 3xx and what follows until the decision: refused, it is the result.
        state.deferred = [.response(head)]
        guard state.redirectCount < RedirectRules.maximumRedirects else {
            state.cancellation = NetworkingError(
                .transport(.httpTooManyRedirects), "more than \(RedirectRules.maximumRedirects) redirects",
                request: state.originalRequest
            )
            redirectDecided(nil, attempt: id)
            return true
        }
        // The hooks and errors of a redirect speak Foundation's type: made here, off the common path.
        guard let response = head.makeHTTPURLResponse(url: url ?? proposal.url!) else {
            state.deferred = nil
            fail(state, with: NetworkingError(.transport(.badServerResponse), "the response head is not valid HTTP", request: state.originalRequest))
            return true
        }
        taskWillRedirect(attemptID: id, response: response, newRequest: proposal) { [weak self] decided in
            // Called on the manager's executor (synchronously, or from the hook's task).
            self?.assumeIsolated { $0.redirectDecided(decided, attempt: id) }
        }
        return true
    }

    /// The redirect decision: a request to follow starts a new attempt (the 3xx body is dropped);
    /// `nil` with no re-send pending makes the 3xx the result.
    private func redirectDecided(_ decided: URLRequest?, attempt id: AttemptID) {
        guard let state = transfersByAttempt[id], state.task?.attemptID == id else { return }
        if let decided, state.resendRequest == nil, state.cancellation == nil {
            if !RedirectRules.sendsBody(decided.httpMethod) { state.upload = .none }
            state.resendRequest = decided
        }
        if let cancellation = state.cancellation, state.resendRequest == nil {
            // Refused with an error (too many redirects, an unsupported scheme, the target's
            // security policy): stop now rather than wait for the whole 3xx body.
            return cancelTransfer(state.id, reason: cancellation)
        }
        guard state.resendRequest != nil, state.cancellation == nil else {
            return releaseDeferred(of: state)
        }
        let completed = state.deferred?.contains { if case .complete = $0 { true } else { false } } ?? false
        state.deferred = nil
        if completed || state.attemptEnded {
            process(completionError: nil, for: state)
        } else {
            state.cancelTask()
        }
    }

    /// Asks the challenge rules (hook, per-host credential) about a held-back 401/407, as
    /// URLSession's task-level challenge would.
    func askForCredential(after head: ResponseHead, for state: TransferState, attempt id: AttemptID) {
        let url = state.headURL ?? state.currentRequest.url
        let header = head.statusCode == 407 ? "Proxy-Authenticate" : "WWW-Authenticate"
        let offer = (head.value(of: header) ?? "").lowercased()
        guard offer.hasPrefix("basic"), let response = state.response else {
            // Only Basic is answered here, as by FoundationNetworking: any other scheme's
            // 401/407 is the result, as received.
            return deliverPendingAuthentication(of: state)
        }
        let realm = offer.range(of: "realm=\"").flatMap { start in
            offer[start.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
        let space = URLProtectionSpace(
            host: url?.host ?? "", port: url?.port ?? (url?.scheme == "https" ? 443 : 80),
            protocol: url?.scheme, realm: realm, authenticationMethod: NSURLAuthenticationMethodHTTPBasic
        )
        state.challengePending = true
        // The challenge hook's context is Foundation's type; the sender is never used (answers go
        // through the completion handler).
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: state.authenticationAttempts,
            failureResponse: response, error: nil, sender: SessionChallengeSender()
        )
        taskDidReceive(challenge: challenge, attemptID: id) { [weak self] disposition, credential in
            self?.assumeIsolated { $0.challengeAnswered(disposition, credential, space: space, attempt: id) }
        }
    }

    /// A credential retries the request in a new attempt; a refusal already delivered the 401/407.
    /// The credential is scoped to the challenge's protection space: the Session layer adds it to
    /// later attempts to that origin only (``ScopedCredential``), never to a redirect elsewhere.
    private func challengeAnswered(
        _ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?, space: URLProtectionSpace,
        attempt id: AttemptID
    ) {
        transfersByAttempt[id]?.challengePending = false
        guard disposition == .useCredential, let credential,
              let state = transfersByAttempt[id], state.task?.attemptID == id else { return }
        guard let scoped = ScopedCredential(credential, space: space) else { return deliverPendingAuthentication(of: state) }
        state.credential = scoped
        state.authenticationAttempts += 1
        state.resendRequest = state.currentRequest
        if state.attemptEnded {
            process(completionError: nil, for: state)
        } else {
            state.cancelTask()
        }
    }
}

/// The sender of challenges the Session layer raises itself: answers go through the completion handler.
final class SessionChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
