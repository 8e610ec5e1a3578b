/// Controls: starting, admission, cancel, suspend (pause or in place), resume, invalidation.
extension TransferStateMachine {
    /// The transfer was registered: unless held, it asks for a slot.
    mutating func start() -> [Action] {
        guard case .waiting(held: false) = phase else { return [] }
        return [.schedule]
    }

    /// The scheduler gave the transfer a slot: its first (or resumed) attempt starts. A transfer
    /// that is not queued any more (held, running, finished) gives the slot back.
    mutating func admitted() -> [Action] {
        guard case .waiting(held: false) = phase else { return [.releaseSlot] }
        return begin(currentRequest)
    }

    /// Stops the transfer with `reason` (the caller's cancel, a sink's error): waiting, it ends at
    /// once; with an attempt, once that attempt has ended. The first reason wins; a finished
    /// transfer ignores it.
    mutating func cancel(_ reason: Failure) -> [Action] {
        switch phase {
        case .waiting:
            phase = .finished
            return [.finish(.failure(.cancelled(reason)), wasRunning: false)]
        case .running(let attempt), .resending(let attempt, _), .pausing(let attempt, _):
            return stop(attempt, held: [], .cancelled(reason))
        case .deciding(let attempt, _, let held):
            return stop(attempt, held: held, .cancelled(reason))
        case .cancelling, .finished:
            return []
        }
    }

    /// `suspend()`. Waiting: held (out of the scheduler's queue). Running, `style` says how:
    /// ``SuspendStyle/restart`` stops the attempt for a later one, ``SuspendStyle/inPlace``
    /// pauses it, ``SuspendStyle/unsupported`` is rejected. A suspend while a pause lands
    /// withdraws a resume asked meanwhile. Finished: rejected.
    mutating func suspend(_ style: SuspendStyle) -> [Action] {
        switch phase {
        case .waiting(held: false):
            phase = .waiting(held: true)
            return [.unschedule, .announceSuspended]
        case .waiting(held: true), .cancelling:
            return []
        case .finished:
            return [.reject(.finished)]
        case .pausing(let attempt, _):
            phase = .pausing(attempt, resumeRequested: false)
            return []
        case .running(let attempt), .deciding(let attempt, _, _), .resending(let attempt, _):
            switch style {
            case .unsupported:
                return [.reject(.unsupported)]
            case .inPlace:
                guard !isSuspendedInPlace else { return [] }
                isSuspendedInPlace = true
                // An attempt being replaced is not paused: the next one starts paused.
                if case .resending = phase { return [.announceSuspended] }
                return [.pauseAttempt(attempt.id), .announceSuspended]
            case .restart:
                if case .deciding(_, _, let held) = phase, Self.containsCompletion(held) {
                    // The attempt has already ended: no confirmation of a cancel would come.
                    return landPause(resumeRequested: false)
                }
                if attempt.ended { return landPause(resumeRequested: false) }
                phase = .pausing(attempt, resumeRequested: false)
                return [.cancelAttempt(attempt.id, armWatchdog: false)]
            }
        }
    }

    /// `resume()`. Held: asks for a slot again (rejected after invalidation). Suspended in place:
    /// the attempt is unpaused. A pause still landing: resumed as soon as it has. Finished:
    /// rejected. Anything else (queued, running): nothing.
    mutating func resume() -> [Action] {
        switch phase {
        case .waiting(held: true):
            guard !isInvalidated else { return [.reject(.invalidated)] }
            phase = .waiting(held: false)
            return [.schedule]
        case .pausing(let attempt, _):
            phase = .pausing(attempt, resumeRequested: true)
            return []
        case .running(let attempt), .deciding(let attempt, _, _), .resending(let attempt, _):
            guard isSuspendedInPlace else { return [] }
            isSuspendedInPlace = false
            if case .resending = phase { return [.announceResumed] }
            return [.resumeAttempt(attempt.id), .announceResumed]
        case .finished:
            return [.reject(.finished)]
        case .waiting(held: false), .cancelling:
            return []
        }
    }

    /// The manager is invalidated. Waiting (held or queued) transfers fail now; no new attempt
    /// starts from now on (a re-send, a landed pause fail instead). With `cancelRunning`
    /// (`invalidateAndCancel()`) running transfers are stopped too; without, they finish.
    mutating func invalidate(cancelRunning: Bool) -> [Action] {
        isInvalidated = true
        switch phase {
        case .waiting:
            phase = .finished
            return [.finish(.failure(.invalidated(.beforeStart)), wasRunning: false)]
        case .running(let attempt), .resending(let attempt, _), .pausing(let attempt, _):
            return cancelRunning ? stop(attempt, held: [], .invalidated(.cancelled)) : []
        case .deciding(let attempt, _, let held):
            return cancelRunning ? stop(attempt, held: held, .invalidated(.cancelled)) : []
        case .cancelling, .finished:
            return []
        }
    }

    /// The transport reported the session invalid (every attempt it ran is over): whatever is
    /// left ends now, in any phase, without waiting for a confirmation.
    mutating func sessionDidEnd() -> [Action] {
        isInvalidated = true
        switch phase {
        case .finished:
            return []
        case .waiting:
            phase = .finished
            return [.finish(.failure(.invalidated(.sessionEnded)), wasRunning: false)]
        case .running, .deciding, .resending, .pausing, .cancelling:
            phase = .finished
            return [.finish(.failure(.invalidated(.sessionEnded)), wasRunning: true)]
        }
    }

    /// The attempt stopped for a pause has ended: the transfer waits, held (or queued again
    /// when a resume came meanwhile), and frees its slot. After invalidation it fails instead.
    mutating func landPause(resumeRequested: Bool) -> [Action] {
        isSuspendedInPlace = false
        guard !isInvalidated else {
            phase = .finished
            return [.finish(.failure(.invalidated(.beforeRestart)), wasRunning: true)]
        }
        phase = .waiting(held: !resumeRequested)
        return resumeRequested ? [.pauseLanded, .schedule] : [.pauseLanded]
    }
}
