/// An attempt's events: head, body, bytes sent, the transport's challenge, completion.
/// Events of any attempt but the current one are ignored.
extension TransferStateMachine {
    /// A response head arrived.
    ///
    /// Running: a redirect is held for ``Action/decideRedirect(_:head:proposal:)`` (or fails the
    /// transfer past ``Configuration/maxRedirects``); a declared length past the limit fails it;
    /// a 401/407 a credential might answer is held for its challenge; any other head is final
    /// (the response hook's, or delivered). Deciding: held. Otherwise ignored.
    mutating func attemptReceivedHead(_ id: TransferAttemptID, _ head: Head, _ facts: HeadFacts) -> [Action] {
        guard facts.status >= 200 else { return [] } // 100 Continue, 103 Early Hints
        switch phase {
        case .running(var attempt) where attempt.id == id:
            guard attempt.hasHead else { return process(head, facts, of: attempt) }
            // A second response in one attempt replaces the first.
            attempt.hasHead = false
            attempt.bytesReceived = 0
            return [.resetReceived] + process(head, facts, of: attempt)
        case .deciding(let attempt, _, _) where attempt.id == id:
            hold(.head(head, facts))
            return []
        default:
            return []
        }
    }

    /// A chunk of the response body arrived: delivered, held during a decision, or ignored; past
    /// ``Configuration/maxResponseBytes`` it fails the transfer.
    mutating func attemptReceivedBody(_ id: TransferAttemptID, _ body: Body) -> BodyAction {
        switch phase {
        case .running(var attempt) where attempt.id == id:
            attempt.bytesReceived += Payload.byteCount(of: body)
            if let limit = configuration.maxResponseBytes, attempt.bytesReceived > limit {
                return .actions(stop(attempt, held: [], .responseTooLarge(limit: limit, length: attempt.bytesReceived, declared: false)))
            }
            phase = .running(attempt)
            return .deliver(body)
        case .deciding(let attempt, _, _) where attempt.id == id:
            hold(.body(body))
            return .held
        default:
            return .ignore
        }
    }

    /// The current attempt sent `byteCount` more bytes of the request body: reported in every
    /// phase that has that attempt (as today: progress is not held back by decisions).
    mutating func attemptSentBody(_ id: TransferAttemptID, byteCount: Int64) -> [Action] {
        guard byteCount > 0, currentAttempt == id else { return [] }
        return [.deliverUploadProgress(byteCount)]
    }

    /// The transport raised a challenge for the attempt (URLSession). About a held 401/407 or
    /// with none held, it is decided (or refused at once past ``Configuration/maxAuthenticationAttempts``);
    /// otherwise — an old attempt, one being stopped — it is never answered (answering a
    /// cancelled URLSession task can trap).
    mutating func attemptReceivedChallenge(_ id: TransferAttemptID) -> [Action] {
        let capped = authenticationAttempts >= configuration.maxAuthenticationAttempts
        switch phase {
        case .deciding(var attempt, .challenge(let head, asked: false), let held) where attempt.id == id:
            if capped {
                attempt.challengeRefused = true
                return [.refuseChallenge(id)] + release(attempt, head: head, held: held)
            }
            phase = .deciding(attempt, .challenge(head: head, asked: true), held: held)
            return [.decideChallenge(id, head: head)]
        case .running(var attempt) where attempt.id == id:
            if capped {
                attempt.challengeRefused = true
                phase = .running(attempt)
                return [.refuseChallenge(id)]
            }
            phase = .deciding(attempt, .challenge(head: nil, asked: true), held: [])
            return [.decideChallenge(id, head: nil)]
        default:
            return []
        }
    }

    /// The attempt ended.
    ///
    /// Running: success with a head, else ``Reason/noResponse``; a failure is the result, except
    /// a cancel after a refused challenge with a head (then the 401/407 is the result). Deciding:
    /// held — but a 401/407 whose challenge never came is final, and is released with it.
    /// Resending: the next attempt starts. Pausing: the pause lands. Cancelling: the transfer fails.
    mutating func attemptCompleted(_ id: TransferAttemptID, _ outcome: AttemptOutcome) -> [Action] {
        switch phase {
        case .running(let attempt) where attempt.id == id:
            phase = .finished
            return [.finish(ending(of: attempt, outcome), wasRunning: true)]
        case .deciding(let attempt, .challenge(let head, asked: false), var held) where attempt.id == id:
            held.append(.completion(outcome))
            return release(attempt, head: head, held: held)
        case .deciding(let attempt, _, _) where attempt.id == id:
            hold(.completion(outcome))
            return []
        case .resending(let attempt, let next) where attempt.id == id:
            return begin(next)
        case .pausing(let attempt, let resumeRequested) where attempt.id == id:
            return landPause(resumeRequested: resumeRequested)
        case .cancelling(let attempt, let reason) where attempt.id == id:
            phase = .finished
            return [.finish(.failure(reason), wasRunning: true)]
        default:
            return []
        }
    }

    /// The cancel of `id` was never confirmed (the shell's watchdog): the transfer fails anyway.
    mutating func cancellationTimedOut(_ id: TransferAttemptID) -> [Action] {
        guard case .cancelling(let attempt, let reason) = phase, attempt.id == id else { return [] }
        phase = .finished
        return [.finish(.failure(reason), wasRunning: true)]
    }

    /// One event handed back by ``Action/replay(_:_:)``, processed as if it arrived now.
    mutating func replay(_ id: TransferAttemptID, _ event: HeldEvent) -> [Action] {
        switch event {
        case .head(let head, let facts):
            return attemptReceivedHead(id, head, facts)
        case .body(let body):
            switch attemptReceivedBody(id, body) {
            case .deliver(let body): return [.deliverBody(body)]
            case .held, .ignore: return []
            case .actions(let actions): return actions
            }
        case .completion(let outcome):
            return attemptCompleted(id, outcome)
        }
    }

    // MARK: Helpers

    /// A head of the running attempt: redirect, limit, challenge, or final.
    private mutating func process(_ head: Head, _ facts: HeadFacts, of attempt: Attempt) -> [Action] {
        if let proposal = facts.redirect {
            guard redirectCount < configuration.maxRedirects else {
                return stop(attempt, held: [], .tooManyRedirects(limit: configuration.maxRedirects))
            }
            phase = .deciding(attempt, .redirect(head: head, proposal: proposal), held: [])
            return [.decideRedirect(attempt.id, head: head, proposal: proposal)]
        }
        if let limit = configuration.maxResponseBytes, let declared = facts.declaredLength, declared > limit {
            return stop(attempt, held: [], .responseTooLarge(limit: limit, length: declared, declared: true))
        }
        switch facts.authentication {
        case .challengeNow where authenticationAttempts < configuration.maxAuthenticationAttempts:
            phase = .deciding(attempt, .challenge(head: head, asked: true), held: [])
            return [.decideChallenge(attempt.id, head: head)]
        case .challengeMayFollow:
            phase = .deciding(attempt, .challenge(head: head, asked: false), held: [])
            return []
        case .none, .challengeNow:
            return finalHead(head, of: attempt, held: [])
        }
    }

    /// How a running attempt's completion ends the transfer.
    private func ending(of attempt: Attempt, _ outcome: AttemptOutcome) -> Ending {
        switch outcome {
        case .cancelled where attempt.challengeRefused && attempt.hasHead:
            return .success // a refused challenge surfaces as a cancel: the 401/407 is the result
        case .cancelled(let failure), .failed(let failure):
            return .failure(.transport(failure))
        case .success:
            return attempt.hasHead ? .success : .failure(.noResponse)
        }
    }

    /// Appends to the held events without copying them (the phase lets go of its array first).
    private mutating func hold(_ event: HeldEvent) {
        guard case .deciding(let attempt, let decision, var held) = phase else { return }
        phase = .finished
        held.append(event)
        phase = .deciding(attempt, decision, held: held)
    }
}
