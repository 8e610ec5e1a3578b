@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// The table's cells that change something; `nil` means "phase unchanged, no action".
extension TransferStateMachineTests {
    static func expected(_ start: Start, _ input: Input) -> Expected? {
        let a = F.attempt()
        let id = F.current
        let stopping = Expected(phase: .cancelling(a, reason: .cancelled("c")), actions: [.cancelAttempt(id, armWatchdog: true)])
        switch (input, start) {
        case (.start, .queued):
            return Expected(phase: .waiting(held: false), actions: [.schedule])
        case (.admitted, .queued):
            return Expected(phase: .running(F.attempt(F.next)), actions: [.startAttempt(F.next, "R1")])
        case (.admitted, _):
            return Expected(phase: start.machine.phase, actions: [.releaseSlot])

        case (.head, .running), (.head, .inPlace):
            return Expected(phase: .running(F.attempt(head: true)), actions: [.deliverHead("200")])
        case (.head, _) where start.isDeciding:
            return Expected(phase: appending(.head("200", .init(status: 200)), to: start), actions: [])

        case (.body, .running), (.body, .inPlace):
            return Expected(phase: .running(F.attempt(bytes: 3)), actions: [.deliverBody("abc")])
        case (.body, _) where start.isDeciding:
            return Expected(phase: appending(.body("abc"), to: start), actions: [])

        case (.completed, .running), (.completed, .inPlace):
            // No head came: "the transfer ended without an HTTP response".
            return Expected(phase: .finished, actions: [.finish(.failure(.noResponse), wasRunning: true)])
        case (.completed, .challengeMayFollow):
            // The challenge never came: the held 401 is the result, with what followed it.
            return Expected(phase: .running(F.attempt(head: true, ended: true)),
                            actions: [.deliverHead("401"), .replay(id, [.body("x"), .completion(.success)])])
        case (.completed, _) where start.isDeciding:
            return Expected(phase: appending(.completion(.success), to: start), actions: [])
        case (.completed, .resending):
            return Expected(phase: .running(F.attempt(F.next)), actions: [.startAttempt(F.next, "R2")])
        case (.completed, .pausing):
            return Expected(phase: .waiting(held: true), actions: [.pauseLanded], inPlace: false)
        case (.completed, .cancelling), (.timedOut, .cancelling):
            return Expected(phase: .finished, actions: [.finish(.failure(.cancelled("first")), wasRunning: true)])

        case (.sent, .queued), (.sent, .held), (.sent, .finished):
            return nil
        case (.sent, _):
            return Expected(phase: start.machine.phase, actions: [.deliverUploadProgress(5)])

        case (.challenge, .challengeMayFollow):
            return Expected(phase: .deciding(a, .challenge(head: "401", asked: true), held: [.body("x")]),
                            actions: [.decideChallenge(id, head: "401")])
        case (.challenge, .running), (.challenge, .inPlace):
            return Expected(phase: .deciding(a, .challenge(head: nil, asked: true), held: []), actions: [.decideChallenge(id, head: nil)])

        case (.redirectFollow, .redirect):
            return Expected(phase: .resending(a, next: "R3"), actions: [.cancelAttempt(id, armWatchdog: false)], redirects: 1)
        case (.redirectRefuse, .redirect):
            return Expected(phase: .running(F.attempt(head: true)), actions: [.deliverHead("302"), .replay(id, [.body("x")])])
        case (.redirectFail, .redirect):
            return Expected(phase: .cancelling(a, reason: .cancelled("scheme")), actions: [.cancelAttempt(id, armWatchdog: true)])

        case (.challengeRetry, .challenge):
            return Expected(phase: .resending(a, next: "R1"), actions: [.cancelAttempt(id, armWatchdog: false)], credentials: 1)
        case (.challengeRefuse, .challenge):
            return Expected(phase: .running(F.attempt(head: true, refused: true)), actions: [.deliverHead("401")])

        case (.hookAllow, .response):
            return Expected(phase: .running(F.attempt(head: true)), actions: [.deliverHead("200")])
        case (.hookAllow, .responseEnded):
            return Expected(phase: .running(F.attempt(head: true, ended: true)),
                            actions: [.deliverHead("200"), .replay(id, [.body("x"), .completion(.success)])])
        case (.hookCancel, .response):
            return Expected(phase: .cancelling(a, reason: .responseHookCancelled), actions: [.cancelAttempt(id, armWatchdog: true)])
        case (.hookCancel, .responseEnded):
            return Expected(phase: .finished, actions: [.finish(.failure(.responseHookCancelled), wasRunning: true)])

        case (.cancel, .queued), (.cancel, .held):
            return Expected(phase: .finished, actions: [.finish(.failure(.cancelled("c")), wasRunning: false)])
        case (.cancel, .responseEnded):
            // The attempt already ended while the hook decided: no cancel confirmation will come.
            return Expected(phase: .finished, actions: [.finish(.failure(.cancelled("c")), wasRunning: true)])
        case (.cancel, .resending), (.cancel, .pausing):
            return stopping
        case (.cancel, _) where start.isLive:
            return stopping

        case (.suspendRestart, .queued), (.suspendInPlace, .queued), (.suspendUnsupported, .queued):
            return Expected(phase: .waiting(held: true), actions: [.unschedule, .announceSuspended])
        case (.suspendRestart, .responseEnded):
            return Expected(phase: .waiting(held: true), actions: [.pauseLanded])
        case (.suspendRestart, .resending):
            return Expected(phase: .pausing(a, resumeRequested: false), actions: [.cancelAttempt(id, armWatchdog: false)])
        case (.suspendRestart, _) where start.isLive:
            return Expected(phase: .pausing(a, resumeRequested: false), actions: [.cancelAttempt(id, armWatchdog: false)])
        case (.suspendInPlace, .resending):
            return Expected(phase: start.machine.phase, actions: [.announceSuspended], inPlace: true)
        case (.suspendInPlace, .inPlace):
            return nil
        case (.suspendInPlace, _) where start.isLive || start == .responseEnded:
            return Expected(phase: start.machine.phase, actions: [.pauseAttempt(id), .announceSuspended], inPlace: true)
        case (.suspendUnsupported, _) where start.isLive || start == .resending || start == .responseEnded:
            return Expected(phase: start.machine.phase, actions: [.reject(.unsupported)])
        case (.suspendRestart, .finished), (.suspendInPlace, .finished), (.suspendUnsupported, .finished), (.resume, .finished):
            return Expected(phase: .finished, actions: [.reject(.finished)])

        case (.resume, .held):
            return Expected(phase: .waiting(held: false), actions: [.schedule])
        case (.resume, .pausing):
            return Expected(phase: .pausing(a, resumeRequested: true), actions: [])
        case (.resume, .inPlace):
            return Expected(phase: .running(a), actions: [.resumeAttempt(id), .announceResumed], inPlace: false)

        case (.invalidate, .queued), (.invalidate, .held), (.invalidateAndCancel, .queued), (.invalidateAndCancel, .held):
            return Expected(phase: .finished, actions: [.finish(.failure(.invalidated(.beforeStart)), wasRunning: false)])
        case (.invalidateAndCancel, .responseEnded):
            return Expected(phase: .finished, actions: [.finish(.failure(.invalidated(.cancelled)), wasRunning: true)])
        case (.invalidateAndCancel, _) where start.isLive || start == .resending || start == .pausing:
            return Expected(phase: .cancelling(a, reason: .invalidated(.cancelled)), actions: [.cancelAttempt(id, armWatchdog: true)])

        case (.sessionEnded, .queued), (.sessionEnded, .held):
            return Expected(phase: .finished, actions: [.finish(.failure(.invalidated(.sessionEnded)), wasRunning: false)])
        case (.sessionEnded, .finished):
            return nil
        case (.sessionEnded, _):
            return Expected(phase: .finished, actions: [.finish(.failure(.invalidated(.sessionEnded)), wasRunning: true)])

        case (.resend, .responseEnded):
            return Expected(phase: .running(F.attempt(F.next)), actions: [.startAttempt(F.next, "R1")])
        case (.resend, _) where start.isLive:
            return Expected(phase: .resending(a, next: "R1"), actions: [.cancelAttempt(id, armWatchdog: false)])

        default:
            // oldHead, interimHead, oldBody, oldCompleted, oldSent, lateRedirect, lateChallenge,
            // lateHook, and every other input where it does not apply.
            return nil
        }
    }

    /// The deciding phase `start` with `event` held after what it held.
    static func appending(_ event: TSM.HeldEvent, to start: Start) -> TSM.Phase {
        guard case .deciding(let attempt, let decision, let held) = start.machine.phase else { return start.machine.phase }
        return .deciding(attempt, decision, held: held + [event])
    }
}
