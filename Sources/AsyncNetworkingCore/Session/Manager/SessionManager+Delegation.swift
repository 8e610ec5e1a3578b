import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one entry from every transport: an attempt's events, classified and handed to the
/// transfer's ``LiveTransferStateMachine``. Everything here runs synchronously on the manager's
/// executor.
extension SessionManager {
    /// An event of attempt `id`, on the manager's executor. Events of an attempt the manager no
    /// longer runs (cancelled, replaced) are ignored.
    func attempt(_ id: AttemptID, didReport event: AttemptEvent) {
        // The transport's questions (URLSession): answered here or left unanswered by the rules
        // of SessionManager+Redirects and +Challenges, which look the attempt up themselves.
        switch event {
        case .redirectProposed(let proposal):
            return attemptProposedRedirect(id, proposal)
        case .challenged(let question):
            return attemptRaised(question, attemptID: id)
        default:
            break
        }
        guard let state = transfersByAttempt[id], state.task?.attemptID == id, let attempt = state.machineAttempt else { return }
        switch event {
        case .head(let head):
            attemptDidReceive(head, for: state, attempt: attempt)
        case .body(let data):
            switch state.machine.attemptReceivedBody(attempt, data) {
            case .deliver(let data):
                if let failure = deliverBody(data, to: state) { run(state.machine.cancel(failure), for: state) }
            case .held, .ignore:
                break
            case .actions(let actions):
                run(actions, for: state)
            }
        case .sent(let bytes, let totalExpected):
            guard bytes > 0 else { return }
            if state.expectedToSend == nil, totalExpected > 0 { state.expectedToSend = totalExpected }
            run(state.machine.attemptSentBody(attempt, byteCount: bytes), for: state)
        case .trailers(let fields):
            state.trailers = fields
        case .completed(let outcome):
            if let metrics = outcome.metrics { state.connectionMetrics = metrics }
            if let failure = outcome.bodyReadFailure, state.attemptFailure == nil { state.attemptFailure = failure }
            transfersByAttempt[id] = nil
            // Nothing more will come from this attempt: a question it asked is never answered.
            state.redirectAnswer = nil
            state.challengeAnswer = nil
            run(state.machine.attemptCompleted(attempt, machineOutcome(outcome.error, of: state)), for: state)
        case .redirectProposed, .challenged:
            break // answered above
        }
    }

    /// URLSession's response callback.
    func taskDidReceive(response: URLResponse, attemptID: AttemptID) {
        guard let state = transfersByAttempt[attemptID] else { return }
        guard let http = response as? HTTPURLResponse else {
            return fail(state, with: NetworkingError(
                .transport(.badServerResponse), "the response is not HTTP", request: state.originalRequest
            ))
        }
        var head = ResponseHead(http)
        head.url = http.url
        attempt(attemptID, didReport: .head(head))
    }

    /// A response head: its facts (a redirect to decide on a transport that follows none itself,
    /// a challenge a credential might answer, the declared length) go to the machine with it.
    private func attemptDidReceive(_ head: ResponseHead, for state: TransferState, attempt: TransferAttemptID) {
        // Interim 1xx responses (100 Continue, 103 Early Hints) are not the response.
        guard head.statusCode >= 200 else { return }
        // Set-Cookie is stored before anything is decided on the head (a redirect included).
        storeCookies(from: head, url: head.url ?? state.currentRequest.url, for: state)
        // Curl's heads were checked line by line as they arrived (CurlHeadParser); URLSession's
        // only arrive parsed, so their fields are checked here.
        if !engine.checksResponseHeads, let made = head.foundationResponse, let problem = ResponseHeadValidation.problem(in: made) {
            return fail(state, with: NetworkingError(.transport(.badServerResponse), problem, request: state.originalRequest))
        }
        refreshMachineConfiguration(of: state)
        let url = head.url ?? state.currentRequest.url
        var facts = LiveTransferStateMachine.HeadFacts(status: head.statusCode)
        if !engine.followsRedirects {
            facts.redirect = RedirectRules.proposedRequest(after: head, url: url, for: state.currentRequest)
        }
        if holdsBackAuthenticationResponse(head, url: url, for: state) {
            // URLSession raises the challenge itself, later; elsewhere the Session layer asks now,
            // and answers only Basic (as FoundationNetworking does) wherever the challenge list
            // offers it: a 401/407 offering no Basic challenge is the result, as received.
            if engine.followsRedirects {
                facts.authentication = .challengeMayFollow
            } else if ChallengeSpace.basicChallenge(of: head) != nil {
                facts.authentication = .challengeNow
            }
        }
        facts.declaredLength = TransferState.expectedBodyLength(of: head, method: state.currentRequest.httpMethod)
        if facts.redirect == nil, case .running(let current) = state.machine.phase, current.id == attempt {
            // The head the transfer now answers with (errors and hooks about it carry it).
            state.setHead(head, url: url)
        }
        run(state.machine.attemptReceivedHead(attempt, head, facts), for: state)
    }

    /// How the machine sees a completion: the error this attempt must report whatever the
    /// transport says (a body that could not be read, a trust failure), else the transport's.
    private func machineOutcome(_ error: (any Error)?, of state: TransferState) -> LiveTransferStateMachine.AttemptOutcome {
        if let failure = state.attemptFailure {
            return .failed(failure.adding(request: state.originalRequest, response: state.response))
        }
        if let stream = state.bodyStream, stream.streamStatus == .error {
            // The body could not be read to its end (a file part changed or vanished while being
            // sent): whatever the server answered, the request it saw was not the one asked for.
            // (`streamError` is only read from our own streams: swift-corelibs-foundation traps in
            // it for a CF-backed `InputStream`.)
            let failure = (stream as? BodyInputStream)?.failure
                ?? NetworkingError(.fileReadFailed, "the request body stream reported an error")
            return .failed(failure.adding(request: state.originalRequest, response: state.response))
        }
        guard let error else { return .success }
        let mapped = NetworkingError.transport(
            error, request: state.originalRequest, response: state.response, body: nil,
            received: (state.bytesReceived, state.expectedToReceive)
        )
        return mapped.kind == .cancelled ? .cancelled(mapped) : .failed(mapped)
    }

    /// Whether a 401/407 must wait for its challenge: only when a credential might answer it
    /// (``ChallengeSpace``). A 401: when there is a challenge hook or a credential stored for the
    /// host. A 407: only with a challenge hook — the stored credentials are origins', never a
    /// proxy's — and only where the proxy is known (``proxyRoute(of:)``) or the transport raises
    /// the challenge itself (URLSession).
    func holdsBackAuthenticationResponse(_ head: ResponseHead, url: URL?, for state: TransferState) -> Bool {
        switch head.statusCode {
        case 401:
            guard head.contains("WWW-Authenticate") else { return false }
            if hooks.challenge != nil { return true }
            guard let host = url?.host?.lowercased() else { return false }
            return credentials[host] != nil
        case 407:
            guard head.contains("Proxy-Authenticate"), hooks.challenge != nil else { return false }
            return engine.followsRedirects || proxyRoute(of: state) != nil
        default:
            return false
        }
    }
}
