@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Every input in every phase of ``TransferStateMachine``: the resulting phase and actions.
/// A cell not listed in ``expected(_:_:)`` must leave the phase unchanged and do nothing.
@Suite("TransferStateMachine table")
struct TransferStateMachineTests {
    typealias F = TSMFixtures

    /// The phases the table starts from (current attempt #2, last attempt number 2, request "R1").
    enum Start: String, CaseIterable, Sendable {
        case queued, held, running, inPlace, redirect, challenge, challengeMayFollow, response, responseEnded
        case resending, pausing, cancelling, finished

        /// The machine in this phase.
        var machine: TSM {
            var machine = TSM(request: "R1", held: false)
            machine.lastAttempt = 2
            let a = F.attempt()
            switch self {
            case .queued: machine.phase = .waiting(held: false)
            case .held: machine.phase = .waiting(held: true)
            case .running: machine.phase = .running(a)
            case .inPlace: machine.phase = .running(a); machine.isSuspendedInPlace = true
            case .redirect: machine.phase = .deciding(a, .redirect(head: "302", proposal: "R2"), held: [.body("x")])
            case .challenge: machine.phase = .deciding(a, .challenge(head: "401", asked: true), held: [])
            case .challengeMayFollow: machine.phase = .deciding(a, .challenge(head: "401", asked: false), held: [.body("x")])
            case .response: machine.phase = .deciding(a, .response(head: "200"), held: [])
            case .responseEnded: machine.phase = .deciding(a, .response(head: "200"), held: [.body("x"), .completion(.success)])
            case .resending: machine.phase = .resending(a, next: "R2")
            case .pausing: machine.phase = .pausing(a, resumeRequested: false)
            case .cancelling: machine.phase = .cancelling(a, reason: .cancelled("first"))
            case .finished: machine.phase = .finished
            }
            return machine
        }

        /// Whether the phase holds events for a decision.
        var isDeciding: Bool { [.redirect, .challenge, .challengeMayFollow, .response, .responseEnded].contains(self) }
        /// Whether an attempt is under way and not yet being stopped (nor ended).
        var isLive: Bool { [.running, .inPlace, .redirect, .challenge, .challengeMayFollow, .response].contains(self) }
    }

    /// The inputs, each applied to every phase. `old…` and `late…` carry the earlier attempt's id.
    enum Input: String, CaseIterable, Sendable {
        case start, admitted, head, oldHead, interimHead, body, oldBody, completed, oldCompleted, sent, oldSent
        case challenge, redirectFollow, redirectRefuse, redirectFail, lateRedirect, challengeRetry, challengeRefuse
        case lateChallenge, hookAllow, hookCancel, lateHook, cancel, suspendRestart, suspendInPlace, suspendUnsupported
        case resume, invalidate, invalidateAndCancel, sessionEnded, timedOut, resend

        /// Applies the input.
        func apply(to machine: inout TSM) -> [TSM.Action] {
            switch self {
            case .start: return machine.start()
            case .admitted: return machine.admitted()
            case .head: return machine.attemptReceivedHead(F.current, "200", .init(status: 200))
            case .oldHead: return machine.attemptReceivedHead(F.old, "200", .init(status: 200))
            case .interimHead: return machine.attemptReceivedHead(F.current, "100", .init(status: 100))
            case .body: return F.actions(machine.attemptReceivedBody(F.current, "abc"))
            case .oldBody: return F.actions(machine.attemptReceivedBody(F.old, "abc"))
            case .completed: return machine.attemptCompleted(F.current, .success)
            case .oldCompleted: return machine.attemptCompleted(F.old, .success)
            case .sent: return machine.attemptSentBody(F.current, byteCount: 5)
            case .oldSent: return machine.attemptSentBody(F.old, byteCount: 5)
            case .challenge: return machine.attemptReceivedChallenge(F.current)
            case .redirectFollow: return machine.redirectDecided(F.current, .follow("R3"))
            case .redirectRefuse: return machine.redirectDecided(F.current, .refuse)
            case .redirectFail: return machine.redirectDecided(F.current, .fail("scheme"))
            case .lateRedirect: return machine.redirectDecided(F.old, .follow("R3"))
            case .challengeRetry: return machine.challengeAnswered(F.current, .retry)
            case .challengeRefuse: return machine.challengeAnswered(F.current, .refuse)
            case .lateChallenge: return machine.challengeAnswered(F.old, .retry)
            case .hookAllow: return machine.responseHookAnswered(F.current, .allow)
            case .hookCancel: return machine.responseHookAnswered(F.current, .cancel)
            case .lateHook: return machine.responseHookAnswered(F.old, .allow)
            case .cancel: return machine.cancel("c")
            case .suspendRestart: return machine.suspend(.restart)
            case .suspendInPlace: return machine.suspend(.inPlace)
            case .suspendUnsupported: return machine.suspend(.unsupported)
            case .resume: return machine.resume()
            case .invalidate: return machine.invalidate(cancelRunning: false)
            case .invalidateAndCancel: return machine.invalidate(cancelRunning: true)
            case .sessionEnded: return machine.sessionDidEnd()
            case .timedOut: return machine.cancellationTimedOut(F.current)
            case .resend: return machine.resendCurrentRequest()
            }
        }
    }

    /// A cell's expected result.
    struct Expected {
        var phase: TSM.Phase
        var actions: [TSM.Action]
        var inPlace: Bool? = nil
        var redirects = 0
        var credentials = 0
    }

    @Test("every input in every phase", arguments: Start.allCases, Input.allCases)
    func cell(_ start: Start, _ input: Input) {
        var machine = start.machine
        let before = machine.phase
        let actions = input.apply(to: &machine)
        let expected = Self.expected(start, input) ?? Expected(phase: before, actions: [])
        #expect(machine.phase == expected.phase, "phase after \(input) in \(start)")
        #expect(actions == expected.actions, "actions of \(input) in \(start)")
        #expect(machine.isSuspendedInPlace == (expected.inPlace ?? (start == .inPlace)), "in place after \(input) in \(start)")
        #expect(machine.redirectCount == expected.redirects)
        #expect(machine.authenticationAttempts == expected.credentials)
        #expect(machine.isInvalidated == [.invalidate, .invalidateAndCancel, .sessionEnded].contains(input))
    }

    @Test("status, current attempt and pending decision in every phase", arguments: Start.allCases)
    func queries(_ start: Start) {
        let machine = start.machine
        let status: TSM.Status
        switch start {
        case .queued: status = .waiting
        case .held, .inPlace, .pausing: status = .suspended
        case .cancelling: status = .cancelling
        case .finished: status = .finished
        default: status = .running
        }
        #expect(machine.status == status)
        let hasAttempt = ![.queued, .held, .finished].contains(start)
        #expect(machine.currentAttempt == (hasAttempt ? F.current : nil))
        #expect(machine.isDeciding(F.current) == start.isDeciding)
        #expect(!machine.isDeciding(F.old))
    }
}
