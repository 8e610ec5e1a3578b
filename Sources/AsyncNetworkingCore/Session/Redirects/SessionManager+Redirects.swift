import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Redirect decisions, the same on every transport: the machine holds a 3xx (reported as a head
/// by curl and stubs, asked about by URLSession's delegate) and asks; the scheme, the target's
/// security policy, the transfer's redirect policy and the redirect hook answer here.
extension SessionManager {
    /// The transport (URLSession) proposes a redirect and waits for the answer. A task the manager no longer waits on (it was
    /// cancelled, paused or replaced) is never answered: answering after a cancel traps
    /// FoundationNetworking, and the cancel ends the task anyway.
    func attemptProposedRedirect(_ attemptID: AttemptID, _ proposal: RedirectProposal) {
        let (response, proposedByTransport, completion) = (proposal.response, proposal.newRequest, proposal.answer)
        guard let state = transfersByAttempt[attemptID], isAwaitingDecision(state, attemptID),
              let attempt = state.machineAttempt else { return }
        var newRequest = proposedByTransport
        if cookieJar != nil {
            // URLSession reports redirect heads here only: their cookies are stored first. Its
            // proposal copies the jar's `Cookie` of the last attempt; the jar adds the new URL's
            // when answering (answerRedirect).
            storeCookies(from: response, for: state)
            newRequest.setValue(state.currentRequest.value(forHTTPHeaderField: "Cookie"), forHTTPHeaderField: "Cookie")
        }
        var head = ResponseHead(response)
        head.url = response.url
        refreshMachineConfiguration(of: state)
        let actions = state.machine.attemptReceivedHead(
            attempt, head, LiveTransferStateMachine.HeadFacts(status: response.statusCode, redirect: newRequest)
        )
        if state.machine.isDeciding(attempt) {
            state.redirectAnswer = completion
        } else {
            // Refused before any decision (too many redirects): not followed, and not cancelled
            // inside this callback (FoundationNetworking would trap); the task ends by itself.
            completion(nil)
            state.nextCancel = .none
        }
        run(actions, for: state)
        state.nextCancel = .now
    }

    /// Whether URLSession still waits for the manager about this task: it is the transfer's
    /// current attempt, which runs (not being stopped, not deciding already).
    func isAwaitingDecision(_ state: TransferState, _ attemptID: AttemptID) -> Bool {
        guard transfersByAttempt[attemptID] === state, state.task?.attemptID == attemptID,
              case .running(let current) = state.machine.phase else { return false }
        return current.id == state.machineAttempt
    }

    /// Decides about a redirect the machine holds, then answers it.
    func decideRedirect(_ attempt: TransferAttemptID, head: ResponseHead, proposal: URLRequest, for state: TransferState) {
        let url = head.url ?? state.currentRequest.url
        // The hooks and errors of a redirect speak Foundation's type: made here, off the common path.
        guard let target = proposal.url, let response = head.makeHTTPURLResponse(url: url ?? target) else {
            return answerRedirect(attempt, .fail(NetworkingError(
                .transport(.badServerResponse), "the response head is not valid HTTP", request: state.originalRequest
            )), for: state)
        }
        if let refusal = redirectRefusal(state, to: proposal, after: response) {
            return answerRedirect(attempt, .fail(refusal), for: state)
        }
        let proposed = proposedRedirect(proposal, after: response, for: state)
        // The transfer's own redirect policy (a pipeline request's) refuses before any hook runs.
        guard state.options.redirectPolicy.allows(
            from: response.url ?? state.currentRequest.url, to: proposed.url, followed: state.redirectCount
        ) else { return answerRedirect(attempt, .refuse, for: state) }
        guard let hook = hooks.redirect else {
            return answerRedirect(attempt, follow(proposed, after: response, for: state), for: state)
        }
        let context = RedirectContext(
            transfer: state.id, originalRequest: state.originalRequest, response: response,
            proposedRequest: proposed, redirectCount: state.redirectCount
        )
        Task {
            let decision = await hook(context)
            // The transfer may have been cancelled while the hook decided: then stay silent.
            guard state.machine.isDeciding(attempt) else { return }
            self.answerRedirect(attempt, decision.map { self.follow($0, after: response, for: state) } ?? .refuse, for: state)
        }
    }

    /// Gives the machine its answer (and URLSession, when it asked, its own): following in a new
    /// attempt stops the current one — on URLSession in a later job, after the answer.
    private func answerRedirect(_ attempt: TransferAttemptID, _ answer: LiveTransferStateMachine.RedirectAnswer, for state: TransferState) {
        guard state.machine.isDeciding(attempt) else { return }
        guard let reply = state.redirectAnswer else {
            return run(state.machine.redirectDecided(attempt, answer), for: state)
        }
        state.redirectAnswer = nil
        var machineAnswer = answer
        switch answer {
        case .followInAttempt(let request):
            // URLSession sends the answer itself: the jar's cookies for the new URL go on it here,
            // and the final request passes the one header rule, as every attempt's does.
            do throws(NetworkingError) {
                let final = try addingCookies(to: request, for: state)
                try RequestValidation.validateHeaderFields(of: final, original: state.originalRequest)
                reply(final)
            } catch {
                reply(nil)
                state.nextCancel = .none
                machineAnswer = .fail(error)
            }
        case .follow:
            reply(nil)
            state.nextCancel = .afterAnswer
        case .refuse, .refuseInAttempt:
            reply(nil)
            machineAnswer = .refuseInAttempt // URLSession reports the 3xx itself as the response
        case .fail:
            // FoundationNetworking has read the whole 3xx body before it asks, and a cancel
            // racing the answer traps it: the task ends by itself, and the transfer fails then.
            reply(nil)
            state.nextCancel = .none
        }
        run(state.machine.redirectDecided(attempt, machineAnswer), for: state)
        state.nextCancel = .now
    }

    /// The request to propose for a redirect: the transport's, except that a 307/308 of a request
    /// with a body is the current request (method, headers) sent to the new URL; credentials
    /// removed when the origin changes (``RedirectRules``).
    private func proposedRedirect(_ newRequest: URLRequest, after response: HTTPURLResponse, for state: TransferState) -> URLRequest {
        var proposed = newRequest
        if RedirectRules.keepsMethodAndBody(response.statusCode), state.hasReplayableBody {
            proposed = state.currentRequest
            proposed.url = newRequest.url
        }
        return RedirectRules.stripCredentials(from: proposed, comingFrom: response.url ?? state.currentRequest.url)
    }

    /// Follows a redirect under the library's rules (a hook may have changed the target, so the
    /// scheme and the target's policy are checked again). On URLSession, a 307/308 with a body is
    /// re-sent by the manager itself in a new attempt (URLSession on Linux would send the new
    /// request without its body); every other redirect URLSession follows inside its task. Curl
    /// and stubs follow nothing themselves: every redirect is a new attempt.
    private func follow(_ request: URLRequest, after response: HTTPURLResponse, for state: TransferState) -> LiveTransferStateMachine.RedirectAnswer {
        if let refusal = redirectRefusal(state, to: request, after: response) { return .fail(refusal) }
        publishRedirect(state, response: response, newRequest: request)
        var next = request
        let resendsBody = RedirectRules.keepsMethodAndBody(response.statusCode) && state.hasReplayableBody
            && RedirectRules.sendsBody(request.httpMethod)
        if resendsBody {
            next.httpBodyStream = nil
            // The body comes from the transfer's upload source; a plain request keeps its own.
            next.httpBody = { if case .none = state.upload { return state.currentRequest.httpBody } else { return nil } }()
        } else if next.httpBodyStream != nil {
            // A hook's request with a stream the transfer does not own: FoundationNetworking would
            // follow it without its bytes, a new attempt could not send it either. Refused alike.
            return .fail(NetworkingError(
                .unsupportedOperation,
                "the redirect hook returned a request with an httpBodyStream: a redirect cannot send a new body stream",
                request: state.originalRequest, response: response
            ))
        }
        if engine.followsRedirects {
            return resendsBody ? .follow(next) : .followInAttempt(next)
        }
        if !RedirectRules.sendsBody(next.httpMethod) { state.upload = .none }
        return .follow(next)
    }

    /// Why a redirect to `request` must not be followed: a scheme other than http or https, or
    /// the target host's security policy (http under requiresHTTPS, a policy the transport cannot
    /// enforce; curl checks each attempt's policy again when it starts). `nil` when it may be.
    private func redirectRefusal(_ state: TransferState, to request: URLRequest, after response: HTTPURLResponse) -> NetworkingError? {
        if let scheme = RedirectRules.unsupportedScheme(of: request.url) {
            return NetworkingError(
                .unsupportedScheme(scheme), "a redirect to a URL that is not http or https was refused",
                request: state.originalRequest, response: response
            )
        }
        return redirectPolicyRefusal(state, to: request, after: response)
    }
}
