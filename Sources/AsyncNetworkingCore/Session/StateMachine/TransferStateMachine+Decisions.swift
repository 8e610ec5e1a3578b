/// The answers to the machine's decisions (redirect, challenge, response hook), and how a
/// decided head is released.
extension TransferStateMachine {
    /// The redirect decision for attempt `id`: follow in a new attempt (counted), refuse (the
    /// 3xx is the result, through the response hook), or fail. Ignored unless that attempt is
    /// still deciding that redirect (a late answer after a cancel or a pause does nothing).
    mutating func redirectDecided(_ id: TransferAttemptID, _ answer: RedirectAnswer) -> [Action] {
        guard case .deciding(let attempt, .redirect(let head, _), let held) = phase, attempt.id == id else { return [] }
        switch answer {
        case .follow(let request):
            redirectCount += 1
            return resend(request, after: attempt, held: held)
        case .refuse:
            return finalHead(head, of: attempt, held: held)
        case .fail(let failure):
            return stop(attempt, held: held, .cancelled(failure))
        case .followInAttempt(let request) where !attempt.ended && !Self.containsCompletion(held):
            redirectCount += 1
            currentRequest = request
            return continueInAttempt(attempt)
        case .followInAttempt(let request):
            // The attempt has already ended: follow in a new one instead.
            redirectCount += 1
            return resend(request, after: attempt, held: held)
        case .refuseInAttempt:
            // The transport reports the 3xx as a head of its own: only what was held after the
            // decided one is handed back.
            var attempt = attempt
            return handBack(held, of: &attempt)
        }
    }

    /// The transport goes on inside the attempt (a redirect it follows, a credential it sends):
    /// what it reports next replaces what was held, which is dropped.
    private mutating func continueInAttempt(_ attempt: Attempt) -> [Action] {
        var attempt = attempt
        attempt.hasHead = false
        attempt.bytesReceived = 0
        phase = .running(attempt)
        return [.resetReceived]
    }

    /// The challenge decision for attempt `id`. Ignored unless that attempt is deciding a
    /// challenge it asked about.
    mutating func challengeAnswered(_ id: TransferAttemptID, _ answer: ChallengeAnswer) -> [Action] {
        guard case .deciding(var attempt, .challenge(let head, asked: true), let held) = phase, attempt.id == id else { return [] }
        switch answer {
        case .retry:
            authenticationAttempts += 1
            return resend(currentRequest, after: attempt, held: held)
        case .retryInAttempt where !attempt.ended && !Self.containsCompletion(held):
            // The transport answers and retries inside the attempt: the retry's head replaces
            // the held one and its body.
            return continueInAttempt(attempt)
        case .retryInAttempt:
            // The attempt has already ended: retry in a new one instead.
            authenticationAttempts += 1
            return resend(currentRequest, after: attempt, held: held)
        case .refuse:
            attempt.challengeRefused = true
            return release(attempt, head: head, held: held)
        }
    }

    /// The response hook's answer for attempt `id`. Ignored unless that attempt is still
    /// deciding its response (a late answer after a cancel, a pause or a new attempt does nothing).
    mutating func responseHookAnswered(_ id: TransferAttemptID, _ answer: ResponseHookAnswer) -> [Action] {
        guard case .deciding(let attempt, .response(let head), let held) = phase, attempt.id == id else { return [] }
        switch answer {
        case .allow:
            return deliver(head, of: attempt, held: held, first: [])
        case .becomeDownload:
            return deliver(head, of: attempt, held: held, first: [.becomeDownload])
        case .cancel:
            return stop(attempt, held: held, .responseHookCancelled)
        }
    }

    /// The sink asks for the current request to be sent again once this attempt ends (a download
    /// restarting without `Range`): the attempt is stopped and its late events ignored.
    mutating func resendCurrentRequest() -> [Action] {
        switch phase {
        case .running(let attempt):
            return resend(currentRequest, after: attempt, held: [])
        case .deciding(let attempt, _, let held):
            return resend(currentRequest, after: attempt, held: held)
        case .waiting, .resending, .pausing, .cancelling, .finished:
            return []
        }
    }

    // MARK: Helpers (shared with the other files of the machine)

    /// A head is final: the response hook decides about it when there is one, else it is delivered.
    mutating func finalHead(_ head: Head, of attempt: Attempt, held: [HeldEvent]) -> [Action] {
        guard configuration.hasResponseHook else { return deliver(head, of: attempt, held: held, first: []) }
        phase = .deciding(attempt, .response(head: head), held: held)
        return [.decideResponse(attempt.id, head: head)]
    }

    /// Delivers a final head and hands back what was held after it.
    mutating func deliver(_ head: Head, of attempt: Attempt, held: [HeldEvent], first: [Action]) -> [Action] {
        var attempt = attempt
        attempt.hasHead = true
        attempt.bytesReceived = 0
        // One array for the list (this runs once per response).
        var actions = first
        actions.append(.deliverHead(head))
        actions += handBack(held, of: &attempt)
        return actions
    }

    /// Ends a challenge without a retry: the held head (if any) is final; the rest is handed back.
    mutating func release(_ attempt: Attempt, head: Head?, held: [HeldEvent]) -> [Action] {
        if let head { return finalHead(head, of: attempt, held: held) }
        var attempt = attempt
        return handBack(held, of: &attempt)
    }

    /// The attempt runs on, and its held events are replayed.
    mutating func handBack(_ held: [HeldEvent], of attempt: inout Attempt) -> [Action] {
        if Self.containsCompletion(held) { attempt.ended = true }
        phase = .running(attempt)
        return held.isEmpty ? [] : [.replay(attempt.id, held)]
    }

    /// Sends `next` in a new attempt: at once when this one has ended, else once it has.
    mutating func resend(_ next: Request, after attempt: Attempt, held: [HeldEvent]) -> [Action] {
        if attempt.ended || Self.containsCompletion(held) { return begin(next) }
        phase = .resending(attempt, next: next)
        return [.cancelAttempt(attempt.id, armWatchdog: false)]
    }

    /// Starts a new attempt with `request` (paused when suspended in place), or fails when the
    /// manager was invalidated. The transfer holds its slot.
    mutating func begin(_ request: Request) -> [Action] {
        currentRequest = request
        guard !isInvalidated else {
            phase = .finished
            return [.finish(.failure(.invalidated(.beforeRestart)), wasRunning: true)]
        }
        let id = makeAttemptID()
        phase = .running(Attempt(id: id))
        return isSuspendedInPlace ? [.startAttempt(id, request), .pauseAttempt(id)] : [.startAttempt(id, request)]
    }

    /// Whether these held events include the attempt's completion.
    static func containsCompletion(_ held: [HeldEvent]) -> Bool {
        held.contains { if case .completion = $0 { true } else { false } }
    }

    /// Fails the transfer for `reason`: at once when the attempt has ended (no confirmation will
    /// come), else by stopping the attempt and failing when it has ended.
    mutating func stop(_ attempt: Attempt, held: [HeldEvent], _ reason: Reason) -> [Action] {
        if attempt.ended || Self.containsCompletion(held) {
            phase = .finished
            return [.finish(.failure(reason), wasRunning: true)]
        }
        phase = .cancelling(attempt, reason: reason)
        return [.cancelAttempt(attempt.id, armWatchdog: true)]
    }
}
