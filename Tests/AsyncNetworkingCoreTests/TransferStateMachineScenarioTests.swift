@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// Whole transfers through ``TransferStateMachine``: redirects, challenges, limits.
@Suite("TransferStateMachine scenarios: redirects and challenges")
struct TransferStateMachineScenarioTests: TSMAttempts {
    typealias F = TSMFixtures

    /// A driver whose first attempt (#1, "R1") is running.
    func started(_ configuration: TSM.Configuration = TSM.Configuration()) -> TSMDriver {
        let (driver, start, admitted) = TSMDriver.running(configuration)
        #expect(start == [.schedule])
        #expect(admitted == [.startAttempt(one, "R1")])
        return driver
    }

    @Test("a followed redirect: the 3xx and its body are held, the attempt is stopped, the next one starts")
    func redirectFollowed() {
        var d = started()
        #expect(d.run { $0.attemptReceivedHead(one, "302", .init(status: 302, redirect: "R2")) }
                == [.decideRedirect(one, head: "302", proposal: "R2")])
        #expect(d.body(one, "moved") == [])
        #expect(d.run { $0.redirectDecided(one, .follow("R2")) } == [.cancelAttempt(one, armWatchdog: false)])
        #expect(d.body(one, "late") == [])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.startAttempt(two, "R2")])
        #expect(d.run { $0.attemptReceivedHead(two, "200", .init(status: 200)) } == [.deliverHead("200")])
        #expect(d.body(two, "ok") == [.deliverBody("ok")])
        #expect(d.run { $0.attemptCompleted(two, .success) } == [.finish(.success, wasRunning: true)])
        #expect(d.machine.redirectCount == 1)
        #expect(d.machine.currentRequest == "R2")
    }

    @Test("a redirect whose attempt ended before the decision starts the next attempt at once")
    func redirectFollowedAfterEnd() {
        var d = started()
        d.run { $0.attemptReceivedHead(one, "307", .init(status: 307, redirect: "R2")) }
        #expect(d.run { $0.attemptCompleted(one, .success) } == [])
        #expect(d.run { $0.redirectDecided(one, .follow("R2")) } == [.startAttempt(two, "R2")])
    }

    @Test("a refused redirect: the held 3xx is the result, with its body and completion")
    func redirectRefused() {
        var d = started()
        d.run { $0.attemptReceivedHead(one, "302", .init(status: 302, redirect: "R2")) }
        d.body(one, "moved")
        d.run { $0.attemptCompleted(one, .success) }
        #expect(d.run { $0.redirectDecided(one, .refuse) } == [
            .deliverHead("302"), .replay(one, [.body("moved"), .completion(.success)]),
            .deliverBody("moved"), .finish(.success, wasRunning: true),
        ])
        #expect(d.machine.phase == .finished)
    }

    @Test("a refused redirect goes through the response hook like any final head")
    func redirectRefusedWithHook() {
        var d = started(TSM.Configuration(hasResponseHook: true))
        d.run { $0.attemptReceivedHead(one, "302", .init(status: 302, redirect: "R2")) }
        #expect(d.run { $0.redirectDecided(one, .refuse) } == [.decideResponse(one, head: "302")])
        #expect(d.run { $0.responseHookAnswered(one, .allow) } == [.deliverHead("302")])
    }

    @Test("a redirect refused with an error (unsupported scheme) fails the transfer")
    func redirectFailed() {
        var d = started()
        d.run { $0.attemptReceivedHead(one, "302", .init(status: 302, redirect: "ftp")) }
        #expect(d.run { $0.redirectDecided(one, .fail("scheme")) } == [.cancelAttempt(one, armWatchdog: true)])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.failure(.cancelled("scheme")), wasRunning: true)])
    }

    @Test("past maxRedirects the next 3xx fails the transfer without asking")
    func tooManyRedirects() {
        var d = started(TSM.Configuration(maxRedirects: 2))
        var attempt = one
        for hop in 0..<2 {
            d.run { $0.attemptReceivedHead(attempt, "302", .init(status: 302, redirect: "R\(hop + 2)")) }
            d.run { $0.redirectDecided(attempt, .follow("R\(hop + 2)")) }
            d.run { $0.attemptCompleted(attempt, .cancelled("-999")) }
            attempt = TransferAttemptID(rawValue: attempt.rawValue + 1)
        }
        #expect(d.machine.redirectCount == 2)
        #expect(d.run { $0.attemptReceivedHead(attempt, "302", .init(status: 302, redirect: "R9")) } == [.cancelAttempt(attempt, armWatchdog: true)])
        #expect(d.run { $0.attemptCompleted(attempt, .cancelled("-999")) } == [.finish(.failure(.tooManyRedirects(limit: 2)), wasRunning: true)])
    }

    @Test("a 401 answered with a credential: the retry's response replaces it")
    func challengeAnswered() {
        var d = started()
        #expect(d.run { $0.attemptReceivedHead(one, "401", .init(status: 401, authentication: .challengeNow)) }
                == [.decideChallenge(one, head: "401")])
        #expect(d.body(one, "denied") == [])
        #expect(d.run { $0.challengeAnswered(one, .retry) } == [.cancelAttempt(one, armWatchdog: false)])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.startAttempt(two, "R1")])
        #expect(d.run { $0.attemptReceivedHead(two, "200", .init(status: 200)) } == [.deliverHead("200")])
        #expect(d.run { $0.attemptCompleted(two, .success) } == [.finish(.success, wasRunning: true)])
        #expect(!d.log.contains(.deliverHead("401")))
        #expect(d.machine.authenticationAttempts == 1)
    }

    @Test("after maxAuthenticationAttempts retries the 401 is the result")
    func challengeCapped() {
        var d = started(TSM.Configuration(maxAuthenticationAttempts: 1))
        d.run { $0.attemptReceivedHead(one, "401", .init(status: 401, authentication: .challengeNow)) }
        d.run { $0.challengeAnswered(one, .retry) }
        d.run { $0.attemptCompleted(one, .cancelled("-999")) }
        #expect(d.run { $0.attemptReceivedHead(two, "401", .init(status: 401, authentication: .challengeNow)) } == [.deliverHead("401")])
        #expect(d.run { $0.attemptCompleted(two, .success) } == [.finish(.success, wasRunning: true)])
    }

    @Test("a held 401 whose challenge never comes is delivered when the attempt ends")
    func challengeNeverCame() {
        var d = started()
        #expect(d.run { $0.attemptReceivedHead(one, "401", .init(status: 401, authentication: .challengeMayFollow)) } == [])
        #expect(d.body(one, "denied") == [])
        #expect(d.run { $0.attemptCompleted(one, .success) } == [
            .deliverHead("401"), .replay(one, [.body("denied"), .completion(.success)]),
            .deliverBody("denied"), .finish(.success, wasRunning: true),
        ])
    }

    @Test("a refused challenge: the 401 is delivered, and the cancel that follows means the 401 is the result")
    func challengeRefused() {
        var d = started()
        d.run { $0.attemptReceivedHead(one, "401", .init(status: 401, authentication: .challengeMayFollow)) }
        d.body(one, "denied")
        #expect(d.run { $0.attemptReceivedChallenge(one) } == [.decideChallenge(one, head: "401")])
        #expect(d.run { $0.challengeAnswered(one, .refuse) } == [.deliverHead("401"), .replay(one, [.body("denied")]), .deliverBody("denied")])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.success, wasRunning: true)])
    }

    @Test("a refused challenge with no response: the cancel is the result")
    func challengeRefusedWithoutHead() {
        var d = started()
        #expect(d.run { $0.attemptReceivedChallenge(one) } == [.decideChallenge(one, head: nil)])
        #expect(d.run { $0.challengeAnswered(one, .refuse) } == [])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.failure(.transport("-999")), wasRunning: true)])
    }

    @Test("a transport challenge past the cap is refused at once and the held 401 delivered")
    func transportChallengeCapped() {
        var d = started(TSM.Configuration(maxAuthenticationAttempts: 0))
        d.run { $0.attemptReceivedHead(one, "401", .init(status: 401, authentication: .challengeMayFollow)) }
        #expect(d.run { $0.attemptReceivedChallenge(one) } == [.refuseChallenge(one), .deliverHead("401")])
        #expect(d.run { $0.attemptCompleted(one, .cancelled("-999")) } == [.finish(.success, wasRunning: true)])
    }

    @Test("a credential answered inside the attempt: the held 401 and its body are dropped")
    func challengeRetriedInAttempt() {
        var d = started()
        d.run { $0.attemptReceivedHead(one, "401", .init(status: 401, authentication: .challengeMayFollow)) }
        d.body(one, "denied")
        d.run { $0.attemptReceivedChallenge(one) }
        #expect(d.run { $0.challengeAnswered(one, .retryInAttempt) } == [.resetReceived])
        #expect(d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) } == [.deliverHead("200")])
        #expect(d.run { $0.attemptCompleted(one, .success) } == [.finish(.success, wasRunning: true)])
        #expect(!d.log.contains(.deliverBody("denied")))
    }

    @Test("the response-size limit: declared by the head, or passed by the body (held bodies counted on replay)")
    func responseLimit() {
        var declared = started(TSM.Configuration(maxResponseBytes: 4))
        #expect(declared.run { $0.attemptReceivedHead(one, "200", .init(status: 200, declaredLength: 5)) } == [.cancelAttempt(one, armWatchdog: true)])
        #expect(declared.run { $0.attemptCompleted(one, .cancelled("-999")) }
                == [.finish(.failure(.responseTooLarge(limit: 4, length: 5, declared: true)), wasRunning: true)])
        var received = started(TSM.Configuration(maxResponseBytes: 4, hasResponseHook: true))
        received.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) }
        received.body(one, "abc")
        received.body(one, "de")
        #expect(received.run { $0.responseHookAnswered(one, .allow) } == [
            .deliverHead("200"), .replay(one, [.body("abc"), .body("de")]), .deliverBody("abc"), .cancelAttempt(one, armWatchdog: true),
        ])
        #expect(received.run { $0.attemptCompleted(one, .success) }
                == [.finish(.failure(.responseTooLarge(limit: 4, length: 5, declared: false)), wasRunning: true)])
    }

    @Test("interim heads are ignored; a second final head in one attempt replaces the first")
    func heads() {
        var d = started()
        #expect(d.run { $0.attemptReceivedHead(one, "100", .init(status: 100)) } == [])
        #expect(d.run { $0.attemptReceivedHead(one, "200", .init(status: 200)) } == [.deliverHead("200")])
        #expect(d.body(one, "ab") == [.deliverBody("ab")])
        #expect(d.run { $0.attemptReceivedHead(one, "201", .init(status: 201)) } == [.resetReceived, .deliverHead("201")])
        #expect(d.machine.phase == .running(F.attempt(one, head: true)))
    }

    @Test("an attempt that ends before its head fails: no HTTP response")
    func noResponse() {
        var d = started()
        d.body(one, "stray")
        #expect(d.run { $0.attemptCompleted(one, .success) } == [.finish(.failure(.noResponse), wasRunning: true)])
        #expect(d.run { $0.attemptCompleted(one, .success) } == [])
    }
}
