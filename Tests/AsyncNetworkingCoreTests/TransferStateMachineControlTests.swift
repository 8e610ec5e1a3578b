@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// Whole transfers through ``TransferStateMachine``: the response hook, cancel, pause (both
/// styles), invalidation.
@Suite("TransferStateMachine scenarios: hooks and controls")
struct TransferStateMachineControlTests: TSMAttempts {
    typealias F = TSMFixtures

    /// A driver whose first attempt (#1, "R1") is running.
    func started(_ configuration: TSM.Configuration = TSM.Configuration()) -> TSMDriver {
        TSMDriver.running(configuration).driver
    }

    var hooked: TSM.Configuration { TSM.Configuration(hasResponseHook: true) }

    @Test("the response hook holds later events; allow delivers them in order")
    func hookAllow() {
        var d = started(hooked)
        #expect(d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) } == [.decideResponse(one, head: "200")])
        #expect(d.body(one, "a") == [])
        #expect(d.run { $0.attemptSentBody(one, byteCount: 3) } == [.deliverUploadProgress(3)])
        #expect(d.run { $0.responseHookAnswered(one, .allow) } == [.deliverHead("200"), .replay(one, [.body("a")]), .deliverBody("a")])
        #expect(d.body(one, "b") == [.deliverBody("b")])
        #expect(d.run { $0.attemptCompleted(one, .success) } == [.finish(.success, wasRunning: true)])
    }

    @Test("becomeDownload converts the transfer before the head is delivered")
    func hookBecomeDownload() {
        var d = started(hooked)
        d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) }
        #expect(d.run { $0.responseHookAnswered(one, .becomeDownload) } == [.becomeDownload, .deliverHead("200")])
    }

    @Test("a hook that cancels after the attempt ended finishes at once; a second answer does nothing")
    func hookCancelAfterEnd() {
        var d = started(hooked)
        d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) }
        d.run { $0.attemptCompleted(one, .success) }
        #expect(d.run { $0.responseHookAnswered(one, .cancel) } == [.finish(.failure(.responseHookCancelled), wasRunning: true)])
        #expect(d.run { $0.responseHookAnswered(one, .allow) } == [])
    }

    @Test("cancel while the hook decides: the late answer does nothing, the cancel confirmation ends it")
    func cancelDuringHook() {
        var d = started(hooked)
        d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) }
        #expect(d.run { $0.cancel("user") } == [.cancelAttempt(one, armWatchdog: true)])
        #expect(d.run { $0.cancel("again") } == [])
        #expect(d.run { $0.responseHookAnswered(one, .allow) } == [])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.failure(.cancelled("user")), wasRunning: true)])
        #expect(!d.log.contains(.deliverHead("200")))
    }

    @Test("a cancel that is never confirmed ends at the watchdog")
    func watchdog() {
        var d = started()
        d.run { $0.cancel("user") }
        #expect(d.run { $0.cancellationTimedOut(one) } == [.finish(.failure(.cancelled("user")), wasRunning: true)])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [])
    }

    @Test("a hook answer from before a pause and resume does not touch the new attempt")
    func staleHookAfterPauseResume() {
        var d = started(hooked)
        d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) }
        d.run { $0.suspend(.restart) }
        d.run { $0.attemptCompleted(one, .cancelled("-999")) }
        d.run { $0.resume() }
        #expect(d.run { $0.admitted() } == [.startAttempt(two, "R1")])
        #expect(d.run { $0.responseHookAnswered(one, .allow) } == [])
        #expect(d.machine.phase == .running(F.attempt(two)))
    }

    @Test("pause by restart: the attempt is stopped, the pause lands held, resume queues a new attempt")
    func pauseRestart() {
        var d = started()
        d.run { $0.attemptReceivedHead(one, "206", .init(status: 206)) }
        #expect(d.run { $0.suspend(.restart) } == [.cancelAttempt(one, armWatchdog: false)])
        #expect(d.machine.status == .suspended)
        #expect(d.body(one, "late") == [])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.pauseLanded])
        #expect(d.machine.phase == .waiting(held: true))
        #expect(d.run { $0.resume() } == [.schedule])
        #expect(d.run { $0.admitted() } == [.startAttempt(two, "R1")])
    }

    @Test("resume while the pause is landing: queued again as soon as it lands; a later suspend withdraws it")
    func resumeDuringPausing() {
        var d = started()
        d.run { $0.suspend(.restart) }
        #expect(d.run { $0.resume() } == [])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.pauseLanded, .schedule])
        #expect(d.machine.phase == .waiting(held: false))
        var e = started()
        e.run { $0.suspend(.restart) }
        e.run { $0.resume() }
        #expect(e.run { $0.suspend(.restart) } == [])
        #expect(e.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.pauseLanded])
    }

    @Test("pause in place: the attempt is paused and unpaused; a redirect's next attempt starts paused")
    func pauseInPlace() {
        var d = started()
        #expect(d.run { $0.suspend(.inPlace) } == [.pauseAttempt(one), .announceSuspended])
        #expect(d.run { $0.suspend(.inPlace) } == [])
        #expect(d.machine.status == .suspended)
        #expect(d.run { $0.resume() } == [.resumeAttempt(one), .announceResumed])
        #expect(d.machine.status == .running)
        d.run { $0.suspend(.inPlace) }
        d.run { $0.attemptReceivedHead(one, "302", .init(status: 302, redirect: "R2")) }
        d.run { $0.redirectDecided(one, .follow("R2")) }
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.startAttempt(two, "R2"), .pauseAttempt(two)])
        #expect(d.run { $0.resume() } == [.resumeAttempt(two), .announceResumed])
    }

    @Test("suspending a transfer that has not started holds it; resume queues it")
    func suspendWaiting() {
        var d = TSMDriver(held: true)
        #expect(d.run { $0.start() } == [])
        #expect(d.run { $0.suspend(.unsupported) } == [])
        #expect(d.run { $0.resume() } == [.schedule])
        #expect(d.run { $0.suspend(.unsupported) } == [.unschedule, .announceSuspended])
        #expect(d.machine.status == .suspended)
    }

    @Test("invalidate: a running transfer finishes; its re-send or landed pause fails instead of starting")
    func invalidateLetsRunningFinish() {
        var d = started()
        #expect(d.run { $0.invalidate(cancelRunning: false) } == [])
        d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) }
        #expect(d.run { $0.attemptCompleted(one, .success) } == [.finish(.success, wasRunning: true)])
        var r = started()
        r.run { $0.attemptReceivedHead(one, "302", .init(status: 302, redirect: "R2")) }
        r.run { $0.invalidate(cancelRunning: false) }
        r.run { $0.redirectDecided(one, .follow("R2")) }
        #expect(r.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.failure(.invalidated(.beforeRestart)), wasRunning: true)])
        var p = started()
        p.run { $0.suspend(.restart) }
        p.run { $0.resume() }
        p.run { $0.invalidate(cancelRunning: false) }
        #expect(p.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.failure(.invalidated(.beforeRestart)), wasRunning: true)])
    }

    @Test("invalidateAndCancel stops a running transfer; the first reason wins over a later cancel")
    func invalidateAndCancel() {
        var d = started()
        #expect(d.run { $0.invalidate(cancelRunning: true) } == [.cancelAttempt(one, armWatchdog: true)])
        #expect(d.run { $0.cancel("user") } == [])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.failure(.invalidated(.cancelled)), wasRunning: true)])
        #expect(d.run { $0.resume() } == [.reject(.finished)])
    }

    @Test("a download restart re-sends the current request once the attempt ends, ignoring its rest")
    func resendCurrentRequest() {
        var d = started()
        d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) }
        #expect(d.run { $0.resendCurrentRequest() } == [.cancelAttempt(one, armWatchdog: false)])
        #expect(d.body(one, "stale") == [])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.startAttempt(two, "R1")])
    }

    @Test("a slot handed to a transfer that no longer waits is given back")
    func admittedTooLate() {
        var d = TSMDriver()
        d.run { $0.start() }
        #expect(d.run { $0.cancel("user") } == [.finish(.failure(.cancelled("user")), wasRunning: false)])
        #expect(d.run { $0.admitted() } == [.releaseSlot])
    }
}
