import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Challenge and response-hook decisions, the same on every transport: the machine holds a
/// 401/407 (or URLSession's challenge) and asks; the challenge hook or the per-host credential
/// answer here. Also the cache hook, which no machine needs.
extension SessionManager {
    /// The transport (URLSession) raised a challenge and waits for the answer. A task the manager no longer runs, or one being
    /// stopped, is never answered (answering after a cancel can trap).
    func attemptRaised(_ question: ChallengeQuestion, attemptID: AttemptID) {
        let (challenge, completion) = (question.challenge, question.answer)
        guard let state = transfersByAttempt[attemptID], state.task?.attemptID == attemptID,
              let attempt = state.machineAttempt else { return }
        let method = challenge.protectionSpace.authenticationMethod
        #if canImport(Security)
        // Apple platforms: the manager's SecurityPolicy judges the server (SessionManager+AppleTrust).
        if method == "NSURLAuthenticationMethodServerTrust" {
            guard isAwaitingDecision(state, attemptID) else { return }
            return evaluateServerTrust(challenge, for: state, attemptID: attemptID, completion: completion)
        }
        #endif
        // Trust and client-certificate challenges (Apple platforms only) keep the system's handling.
        if method == "NSURLAuthenticationMethodServerTrust" || method == "NSURLAuthenticationMethodClientCertificate" {
            return completion(.performDefaultHandling, nil)
        }
        refreshMachineConfiguration(of: state)
        let actions = state.machine.attemptReceivedChallenge(attempt)
        guard !actions.isEmpty else { return }
        state.challengeAnswer = completion
        let checked = Self.checkedBasicChallenge(challenge, response: state.response)
        state.challenge = checked ?? challenge
        // A rejected credential is retried forever by URLSession on Linux: cap the attempts. A
        // Basic challenge the response does not offer (FoundationNetworking finds "Basic" inside
        // a quoted parameter) is refused: no credential goes to a server that did not ask for it.
        if (challenge.previousFailureCount >= maxAuthenticationAttempts || checked == nil), state.machine.isDeciding(attempt) {
            return answerChallenge(attempt, with: nil, space: challenge.protectionSpace, for: state)
        }
        run(actions, for: state)
    }

    /// URLSession's Basic challenge checked against the response's own challenge list
    /// (``ChallengeSpace``): the same challenge with the realm of the Basic challenge the
    /// response offers, or `nil` when it offers none. Other methods pass unchanged.
    private static func checkedBasicChallenge(
        _ challenge: URLAuthenticationChallenge, response fallback: HTTPURLResponse?
    ) -> URLAuthenticationChallenge? {
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic else { return challenge }
        guard let response = (challenge.failureResponse as? HTTPURLResponse) ?? fallback,
              let basic = ChallengeSpace.basicChallenge(of: response) else { return nil }
        guard basic.realm != space.realm else { return challenge }
        let corrected = space.isProxy()
            ? URLProtectionSpace(proxyHost: space.host, port: space.port, type: space.proxyType, realm: basic.realm, authenticationMethod: space.authenticationMethod)
            : URLProtectionSpace(host: space.host, port: space.port, protocol: space.protocol, realm: basic.realm, authenticationMethod: space.authenticationMethod)
        return URLAuthenticationChallenge(
            protectionSpace: corrected, proposedCredential: challenge.proposedCredential,
            previousFailureCount: challenge.previousFailureCount, failureResponse: challenge.failureResponse,
            error: challenge.error, sender: SessionChallengeSender()
        )
    }

    /// Decides about a challenge the machine holds (URLSession's, or one the Session layer raises
    /// itself about a held 401/407 offering Basic), then answers it.
    func decideChallenge(_ attempt: TransferAttemptID, head: ResponseHead?, for state: TransferState) {
        guard let challenge = state.challenge ?? makeChallenge(after: head, for: state) else {
            return answerChallenge(attempt, with: nil, space: nil, for: state)
        }
        let space = challenge.protectionSpace
        if let hook = hooks.challenge {
            let context = ChallengeContext(transfer: state.id, challenge: challenge)
            Task {
                let answer = await hook(context)
                guard state.machine.isDeciding(attempt) else { return }
                switch answer {
                case .useCredential(let credential): self.answerChallenge(attempt, with: credential, space: space, for: state)
                case .refuse: self.answerChallenge(attempt, with: nil, space: space, for: state)
                }
            }
        } else {
            // The stored credentials are origins': a proxy's 407 is never answered with one.
            answerChallenge(attempt, with: space.isProxy() ? nil : credentials[space.host.lowercased()], space: space, for: state)
        }
    }

    /// The challenge a held 401/407 raises on a transport that answers none itself (curl, stubs),
    /// about its Basic challenge (wherever the field lists it): a 401's protection space is the
    /// origin, a 407's the proxy the attempt went through (``ChallengeSpace``); `nil` for a 407
    /// whose proxy is not known (it is then the response).
    private func makeChallenge(after head: ResponseHead?, for state: TransferState) -> URLAuthenticationChallenge? {
        guard let head, let response = state.response else { return nil }
        let realm = ChallengeSpace.basicChallenge(of: head)?.realm
        let space: URLProtectionSpace
        if head.statusCode == 407 {
            guard let proxy = proxyRoute(of: state) else { return nil }
            space = ChallengeSpace.proxy(proxy, realm: realm)
        } else {
            space = ChallengeSpace.origin(state.headURL ?? state.currentRequest.url, realm: realm)
        }
        // The challenge hook's context is Foundation's type; the sender is never used (answers go
        // through the machine).
        return URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: state.machine.authenticationAttempts,
            failureResponse: response, error: nil, sender: SessionChallengeSender()
        )
    }

    /// Gives the machine its answer (and URLSession, when it asked, its own). A credential retries
    /// the request in a new attempt, scoped to the challenge's protection space: the Session layer
    /// adds it to later attempts to that origin only (``ScopedCredential``), never to a redirect
    /// elsewhere — or, for a proxy's space, gives it to that proxy only (``ScopedProxyCredential``).
    /// No credential: the held 401/407 is the result.
    private func answerChallenge(
        _ attempt: TransferAttemptID, with credential: URLCredential?, space: URLProtectionSpace?, for state: TransferState
    ) {
        guard state.machine.isDeciding(attempt) else { return }
        let reply = state.challengeAnswer
        state.challengeAnswer = nil
        state.challenge = nil
        guard let credential, let space else {
            // `.performDefaultHandling` hangs on Linux and `.useCredential` with nil crashes: cancel.
            reply?(.cancelAuthenticationChallenge, nil)
            return run(state.machine.challengeAnswered(attempt, .refuse), for: state)
        }
        guard let reply else {
            if space.isProxy() {
                // A proxy's credential, for that proxy's hop only (never a request header).
                guard let scoped = ScopedProxyCredential(credential, space: space) else {
                    return run(state.machine.challengeAnswered(attempt, .refuse), for: state)
                }
                state.proxyCredential = scoped
                return run(state.machine.challengeAnswered(attempt, .retry), for: state)
            }
            guard let scoped = ScopedCredential(credential, space: space) else {
                return run(state.machine.challengeAnswered(attempt, .refuse), for: state)
            }
            state.credential = scoped
            return run(state.machine.challengeAnswered(attempt, .retry), for: state)
        }
        if retriesWithScopedCredential(state, credential, space: space) {
            // The retry is a new attempt of ours; the cancelled challenge ends this task.
            reply(.cancelAuthenticationChallenge, nil)
            state.nextCancel = .none
            run(state.machine.challengeAnswered(attempt, .retry), for: state)
            state.nextCancel = .now
        } else {
            reply(.useCredential, credential)
            run(state.machine.challengeAnswered(attempt, .retryInAttempt), for: state)
        }
    }

    /// URLSession on Linux answers a challenge by re-sending the request itself: it re-sends a
    /// streamed body (a stream upload, a file upload) from the stream it already read, so the
    /// server gets an empty or truncated body, and the credential it keeps is below our redirect
    /// rules (a redirect after the answered 401 was seen to loop back to the challenged URL until
    /// `.httpTooManyRedirects`). For HTTP Basic from an origin server the manager retries itself
    /// instead, as on curl: a new attempt (with a fresh stream from the transfer's producer), to
    /// which ``launch(_:request:attempt:)`` adds the credential scoped to the challenge's
    /// protection space — and to later attempts to that origin only.
    /// - Returns: whether the retry was arranged (the challenge is then cancelled).
    private func retriesWithScopedCredential(_ state: TransferState, _ credential: URLCredential, space: URLProtectionSpace) -> Bool {
        guard space.authenticationMethod == NSURLAuthenticationMethodHTTPBasic, !space.isProxy(),
              credential.user != nil, credential.password != nil,
              let scoped = ScopedCredential(credential, space: space) else { return false }
        state.credential = scoped
        return true
    }

    /// Runs the response hook about a final head the machine holds, then answers it.
    func decideResponse(_ attempt: TransferAttemptID, head: ResponseHead, for state: TransferState) {
        state.setHead(head, url: head.url ?? state.currentRequest.url)
        guard let hook = hooks.response, let response = state.response else {
            return run(state.machine.responseHookAnswered(attempt, .allow), for: state)
        }
        let request = state.originalRequest
        Task {
            let disposition = await hook(response, request)
            // A late answer — about an attempt since cancelled, paused or replaced — does nothing.
            guard state.machine.isDeciding(attempt) else { return }
            switch disposition {
            case .allow:
                self.run(state.machine.responseHookAnswered(attempt, .allow), for: state)
            case .becomeDownload(let destination, let options):
                state.pendingDownload = (destination, options)
                self.run(state.machine.responseHookAnswered(attempt, .becomeDownload), for: state)
            case .cancel:
                self.run(state.machine.responseHookAnswered(attempt, .cancel), for: state)
            }
        }
    }

    func taskWillCache(
        _ proposed: CachedURLResponse, task: any TransportTask,
        completion: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let hook = hooks.cache else { return completion(proposed) }
        Task { completion(await hook(proposed)) }
    }
}

/// The sender of challenges the Session layer raises itself: answers go through the machine.
final class SessionChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
