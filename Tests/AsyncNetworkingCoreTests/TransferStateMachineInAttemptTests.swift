@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// Redirects a transport follows inside its own attempt (URLSession asks its delegate and then
/// follows, or reports the 3xx itself): the answers ``TransferStateMachine/RedirectAnswer/followInAttempt(_:)``
/// and ``TransferStateMachine/RedirectAnswer/refuseInAttempt``.
@Suite("TransferStateMachine: redirects followed inside the attempt")
struct TransferStateMachineInAttemptTests: TSMAttempts {

    /// A driver whose first attempt (#1, "R1") is running, deciding a 302 to "R2".
    func deciding(_ configuration: TSM.Configuration = TSM.Configuration()) -> TSMDriver {
        var driver = TSMDriver.running(configuration).driver
        #expect(driver.run { $0.attemptReceivedHead(one, "302", .init(status: 302, redirect: "R2")) }
                == [.decideRedirect(one, head: "302", proposal: "R2")])
        return driver
    }

    @Test("followed in the attempt: counted, the request changes, the same attempt's next head is delivered")
    func followedInAttempt() {
        var d = deciding()
        #expect(d.run { $0.redirectDecided(one, .followInAttempt("R2")) } == [.resetReceived])
        #expect(d.machine.redirectCount == 1)
        #expect(d.machine.currentRequest == "R2")
        #expect(d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) } == [.deliverHead("200")])
        #expect(d.body(one, "ok") == [.deliverBody("ok")])
        #expect(d.run { $0.attemptCompleted(one, .success) } == [.finish(.success, wasRunning: true)])
    }

    @Test("followed in the attempt after it ended: a new attempt follows instead")
    func followedInAttemptAfterEnd() {
        var d = deciding()
        d.run { $0.attemptCompleted(one, .success) }
        #expect(d.run { $0.redirectDecided(one, .followInAttempt("R2")) } == [.startAttempt(two, "R2")])
        #expect(d.machine.redirectCount == 1)
    }

    @Test("refused in the attempt: the transport's own 3xx head is the result, through the response hook")
    func refusedInAttempt() {
        var d = deciding(TSM.Configuration(hasResponseHook: true))
        #expect(d.run { $0.redirectDecided(one, .refuseInAttempt) } == [])
        #expect(d.run { $0.attemptReceivedHead(one, "302", .init(status: 302)) } == [.decideResponse(one, head: "302")])
        #expect(d.run { $0.responseHookAnswered(one, .allow) } == [.deliverHead("302")])
        #expect(d.run { $0.attemptCompleted(one, .success) } == [.finish(.success, wasRunning: true)])
        #expect(d.machine.redirectCount == 0)
    }

    @Test("a late in-attempt answer (after a cancel) does nothing")
    func lateInAttemptAnswer() {
        var d = deciding()
        #expect(d.run { $0.cancel("stop") } == [.cancelAttempt(one, armWatchdog: true)])
        #expect(d.run { $0.redirectDecided(one, .followInAttempt("R2")) } == [])
        #expect(d.machine.redirectCount == 0)
    }
}
