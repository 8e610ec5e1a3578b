@testable import TransportSeam
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// Records what a ``ServerTrustEvaluator`` was asked, and can hold its answer back until released.
final class EvaluatorProbe: Sendable {
    private struct State: Sendable {
        var contexts: [ServerTrustContext] = []
        var released = false
    }

    private let state = SanitizedMutex(State())

    var contexts: [ServerTrustContext] { state.withLock { $0.contexts } }
    var calls: Int { contexts.count }

    /// Lets every held answer go (each returns its decision).
    func release() { state.withLock { $0.released = true } }

    /// Whether ``release()`` was called.
    var isReleased: Bool { state.withLock { $0.released } }

    /// An evaluator answering `decide(callNumber)` (1-based), after recording the context.
    func evaluator(
        timeout: Duration = .seconds(60), _ decide: @escaping @Sendable (Int) -> ServerTrustDecision = { _ in .accept }
    ) -> ServerTrustEvaluator {
        ServerTrustEvaluator(timeout: timeout) { [self] context in
            let call = state.withLock { state in
                state.contexts.append(context)
                return state.contexts.count
            }
            return decide(call)
        }
    }

    /// An evaluator that records the context, then answers `.accept` only once ``release()`` is
    /// called — ignoring cancellation, as a careless evaluator might.
    func heldEvaluator(timeout: Duration = .seconds(60)) -> ServerTrustEvaluator {
        ServerTrustEvaluator(timeout: timeout) { [self] context in
            state.withLock { $0.contexts.append(context) }
            while !state.withLock({ $0.released }) {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return .accept
        }
    }
}

/// The server-trust evaluator against the real TLS test server (curl transport).
@Suite(.serialized, .enabled(if: TestPKI.isAvailable, "needs the openssl and python3 commands"))
struct SecurityEvaluatorTests {
    private func policy(_ evaluator: ServerTrustEvaluator?, pki: TestPKI) throws -> SecurityPolicy {
        SecurityPolicy(evaluation: .customRoots([try pki.certificate("ca.pem")]), serverTrustEvaluator: evaluator)
    }

    private func handshakes(_ server: TLSTestServer) -> Int {
        server.log.filter { $0.hasPrefix("HANDSHAKE-OK") }.count
    }

    @Test func evaluatorSeesThePresentedChainLeafFirstAndAcceptanceSends() async throws {
        let probe = EvaluatorProbe()
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(probe.evaluator(), pki: pki))
            try await expectAccepted(manager, server.url("/accepted"))
            let context = try #require(probe.contexts.first)
            #expect(probe.calls == 1)
            #expect(context.host == "127.0.0.1")
            #expect(context.port == server.port)
            let expected = [try pki.certificate("good.pem"), try pki.certificate("intermediate.pem")]
            #expect(context.certificateChain.map(\.derData) == expected.map(\.derData), "leaf first, as presented")
            #expect(context.leaf == expected[0])
            #expect(server.requests.count == 1 && server.requests[0].contains("POST /accepted body=11"), "\(server.requests)")
        }
    }

    @Test func rejectionFailsTypedAndSendsNothing() async throws {
        let probe = EvaluatorProbe()
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(probe.evaluator { _ in .reject }, pki: pki))
            await expectTrustFailure(manager, server, .rejectedByEvaluator)
            #expect(probe.calls == 1)
            // The server logs its handshake on its own thread, maybe after the client has given up.
            #expect(await eventually { server.log.contains { $0.hasPrefix("HANDSHAKE-OK") } }, "the handshake happened")
            #expect(handshakes(server) == 1 && server.requests.isEmpty, "no request followed: \(server.log)")
        }
    }

    @Test func aPolicyFailureNeverReachesTheEvaluator() async throws {
        let pki = try await TestPKI.make()
        let probe = EvaluatorProbe()
        let evaluator = probe.evaluator()
        try await withTLSServer("self", policy: SecurityPolicy(serverTrustEvaluator: evaluator)) { server, manager, _ in
            await expectTrustFailure(manager, server, .untrustedRoot)
        }
        try await withTLSServer("wrongname", policy: try policy(evaluator, pki: pki)) { server, manager, _ in
            await expectTrustFailure(manager, server, .hostNameMismatch)
        }
        let pinned = SecurityPolicy(
            evaluation: .pinnedPublicKeys([try pki.pin("rekeyed")], roots: [try pki.certificate("ca.pem")]),
            serverTrustEvaluator: evaluator
        )
        try await withTLSServer("good", policy: pinned) { server, manager, _ in
            await expectTrustFailure(manager, server, .publicKeyPinMismatch)
        }
        #expect(probe.calls == 0, "\(probe.contexts.map(\.host))")
    }

    @Test func aKeptAliveConnectionIsJudgedOnce() async throws {
        let probe = EvaluatorProbe()
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(probe.evaluator(), pki: pki))
            for _ in 0..<3 { try await expectAccepted(manager, server.url()) }
            #expect(probe.calls == 1)
            #expect(handshakes(server) == 1, "\(server.log)")
            #expect(server.requests.count == 3)
        }
    }

    @Test func aConnectionMadeWithoutTheEvaluatorIsNeverReusedUnderIt() async throws {
        let probe = EvaluatorProbe()
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(nil, pki: pki))
            try await expectAccepted(manager, server.url("/unjudged"))
            #expect(handshakes(server) == 1)
            // Same TLS settings plus an evaluator: curl offers the kept-alive connection; it is
            // refused before anything is sent, and a new connection is judged.
            await manager.setSecurityPolicy(try policy(probe.evaluator(), pki: pki))
            try await expectAccepted(manager, server.url("/judged"))
            #expect(probe.calls == 1)
            #expect(handshakes(server) == 2, "\(server.log)")
            try await expectAccepted(manager, server.url("/judged-again"))
            #expect(probe.calls == 1, "the judged connection is reused")
            #expect(server.requests.count == 3, "\(server.requests)")
        }
    }

    @Test func anotherEvaluatorJudgesAfresh() async throws {
        let first = EvaluatorProbe()
        let second = EvaluatorProbe()
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(first.evaluator(), pki: pki))
            try await expectAccepted(manager, server.url())
            await manager.setSecurityPolicy(try policy(second.evaluator(), pki: pki), forHost: "127.0.0.1")
            try await expectAccepted(manager, server.url())
            #expect(first.calls == 1 && second.calls == 1)
            #expect(handshakes(server) == 2, "\(server.log)")
        }
    }

    @Test func aRejectedConnectionIsNotKept() async throws {
        let probe = EvaluatorProbe()
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(probe.evaluator { $0 == 1 ? .reject : .accept }, pki: pki))
            await expectTrustFailure(manager, server, .rejectedByEvaluator)
            try await expectAccepted(manager, server.url())
            #expect(probe.calls == 2)
            #expect(handshakes(server) == 2, "\(server.log)")
            #expect(server.requests.count == 1)
        }
    }

    @Test func noAnswerInTimeRejects() async throws {
        let probe = EvaluatorProbe()
        defer { probe.release() }
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(probe.heldEvaluator(timeout: .milliseconds(300)), pki: pki))
            await expectTrustFailure(manager, server, .evaluatorTimedOut)
            #expect(probe.calls == 1)
        }
    }

    @Test func cancellingWhileTheEvaluatorDecidesEndsCancelledAndSendsNothing() async throws {
        let probe = EvaluatorProbe()
        defer { probe.release() }
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(probe.heldEvaluator(), pki: pki))
            let task = Task { try await postSecret(manager, server.url()) }
            #expect(await eventually { probe.calls == 1 })
            task.cancel()
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled)
            probe.release() // its late .accept is ignored
            #expect(await eventually { await manager.activeTransferCount == 0 })
            // The loop is not stuck, and nothing of the cancelled request was sent.
            let next = EvaluatorProbe()
            await manager.setSecurityPolicy(try policy(next.evaluator(), pki: pki))
            try await expectAccepted(manager, server.url("/after"))
            #expect(server.requests.count == 1 && server.requests[0].contains("/after"), "\(server.requests)")
        }
    }

    @Test func invalidatingTheManagerWhileTheEvaluatorDecidesEndsEverything() async throws {
        let probe = EvaluatorProbe()
        defer { probe.release() }
        let pki = try await TestPKI.make()
        let server = try await pki.server("good")
        defer { server.stop() }
        let manager = SessionManager(transport: .curl, securityPolicy: try policy(probe.heldEvaluator(), pki: pki))
        try await withDeadline {
            let task = Task { try await postSecret(manager, server.url()) }
            #expect(await eventually { probe.calls == 1 })
            await manager.invalidateAndCancel()
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled || error?.kind == .sessionInvalidated, "\(String(describing: error))")
            #expect(server.requests.isEmpty, "\(server.requests)")
        }
    }

    @Test func aRedirectIsJudgedByTheNewHostsEvaluator() async throws {
        let first = EvaluatorProbe()
        let second = EvaluatorProbe()
        try await withTLSServer("good") { server, manager, pki in
            await manager.setSecurityPolicy(try policy(first.evaluator(), pki: pki))
            await manager.setSecurityPolicy(try policy(second.evaluator(), pki: pki), forHost: "localhost")
            let target = server.url("/landed", host: "localhost").absoluteString
            let (data, _) = try await manager.data(from: server.url("/redirect?to=\(target)"))
            #expect(String(decoding: data, as: UTF8.self).hasPrefix("ok GET /landed"))
            #expect(first.contexts.map(\.host) == ["127.0.0.1"])
            #expect(second.contexts.map(\.host) == ["localhost"])
        }
    }

    @Test func underADisabledEvaluationTheEvaluatorIsTheOnlyJudge() async throws {
        let probe = EvaluatorProbe()
        try await withTLSServer("self") { server, manager, pki in
            let evaluator = probe.evaluator { $0 == 1 ? .accept : .reject }
            await manager.setSecurityPolicy(SecurityPolicy(evaluation: .disabled, validatesDomainName: false, serverTrustEvaluator: evaluator))
            try await expectAccepted(manager, server.url())
            #expect(probe.contexts.first?.certificateChain == [try pki.certificate("self.pem")])
            // .disabled never reuses a connection: the next request is a new one, judged again.
            await expectTrustFailure(manager, server, .rejectedByEvaluator)
            #expect(probe.calls == 2)
        }
    }

    @Test func urlSessionTransportRefusesAnEvaluatorOnLinux() async throws {
        #if os(Linux)
        let probe = EvaluatorProbe()
        let policy = SecurityPolicy(serverTrustEvaluator: probe.evaluator())
        try await withTLSServer("good", policy: policy, transport: .urlSession) { server, manager, _ in
            let error = await expectNetworkingError { try await postSecret(manager, server.url()) }
            #expect(error?.kind == .securityPolicyUnsupported)
            #expect(!server.log.contains { $0.hasPrefix("HANDSHAKE") }, "\(server.log)")
        }
        #expect(probe.calls == 0)
        #endif
    }
}

/// The evaluator's values and the transport's record of accepted connections (no I/O).
struct SecurityEvaluatorValueTests {
    @Test func evaluatorsAreEqualOnlyToThemselves() {
        let a = ServerTrustEvaluator { _ in .accept }
        let b = ServerTrustEvaluator { _ in .accept }
        #expect(a == a && a != b)
        #expect(Set([a, a, b]).count == 2)
        #expect(SecurityPolicy(serverTrustEvaluator: a) == SecurityPolicy(serverTrustEvaluator: a))
        #expect(SecurityPolicy(serverTrustEvaluator: a) != SecurityPolicy(serverTrustEvaluator: b))
        #expect(a.id != b.id)
        #expect(ServerTrustEvaluator(timeout: .zero) { _ in .reject }.timeout == .milliseconds(1))
        #expect(a.timeout == .seconds(10))
    }

    @Test func aPolicyWithAnEvaluatorIsNotATransportDefault() {
        #expect(SecurityPolicy.default.isTransportDefault)
        #expect(!SecurityPolicy(serverTrustEvaluator: ServerTrustEvaluator { _ in .accept }).isTransportDefault)
        #expect(CurlTLSOptions(policy: .default).serverTrustEvaluator == nil)
        let evaluator = ServerTrustEvaluator { _ in .accept }
        #expect(CurlTLSOptions(policy: SecurityPolicy(serverTrustEvaluator: evaluator)).serverTrustEvaluator == evaluator)
    }

    @Test func contextLeafIsTheFirstCertificate() {
        let leaf = Certificate(der: Data([0x30, 1]))
        let context = ServerTrustContext(host: "h", port: 443, certificateChain: [leaf, Certificate(der: Data([0x30, 2]))])
        #expect(context.leaf == leaf)
        #expect(ServerTrustContext(host: "h", port: 443, certificateChain: []).leaf == nil)
    }

    @Test func approvalsNameConnectionEvaluatorAndHost() {
        var approvals = CurlTrustApprovals()
        let one = CurlTrustApprovals.Connection(localAddress: "127.0.0.1", localPort: 50_000, remoteAddress: "127.0.0.1", remotePort: 443)
        var two = one
        two.localPort = 50_001
        approvals.record(one, evaluator: 7, host: "Example.COM.")
        #expect(approvals.approves(one, evaluator: 7, host: "example.com"))
        #expect(!approvals.approves(one, evaluator: 8, host: "example.com"), "another evaluator")
        #expect(!approvals.approves(one, evaluator: 7, host: "other.example"), "another host")
        #expect(!approvals.approves(two, evaluator: 7, host: "example.com"), "another connection")
        approvals.record(one, evaluator: 8, host: "example.com")
        #expect(!approvals.approves(one, evaluator: 7, host: "example.com"), "a new handshake replaces the record")
        approvals.forget(one)
        #expect(!approvals.approves(one, evaluator: 8, host: "example.com"))
    }

    @Test func approvalsPastCapacityForgetEverythingNeverTrustMore() {
        var approvals = CurlTrustApprovals()
        approvals.capacity = 2
        func connection(_ port: Int) -> CurlTrustApprovals.Connection {
            CurlTrustApprovals.Connection(localAddress: "::1", localPort: port, remoteAddress: "::1", remotePort: 443)
        }
        approvals.record(connection(1), evaluator: 1, host: "h")
        approvals.record(connection(2), evaluator: 1, host: "h")
        approvals.record(connection(2), evaluator: 1, host: "h") // a replacement does not count
        #expect(approvals.count == 2)
        approvals.record(connection(3), evaluator: 1, host: "h")
        #expect(approvals.count == 1)
        #expect(!approvals.approves(connection(1), evaluator: 1, host: "h"))
        #expect(approvals.approves(connection(3), evaluator: 1, host: "h"))
    }

    @Test func aWaitEndsOnceWithTheFirstOutcome() async {
        let wait = CurlTrustWait()
        #expect(wait.resolve(.cancelled))
        #expect(!wait.resolve(.decided(.accept)))
        #expect(wait.wait(timeout: .seconds(30)) == .cancelled)
        let timed = CurlTrustWait()
        timed.start(ServerTrustEvaluator { _ in
            try? await Task.sleep(for: .seconds(600)) // cancelled when the wait times out
            return .accept
        }, ServerTrustContext(host: "h", port: 1, certificateChain: []))
        #expect(timed.wait(timeout: .milliseconds(50)) == .timedOut)
        let answered = CurlTrustWait()
        answered.start(ServerTrustEvaluator { _ in .reject }, ServerTrustContext(host: "h", port: 1, certificateChain: []))
        // The wait blocks its thread, as it blocks the curl loop thread in use: block a thread of
        // our own, never one of the (two, here) cooperative pool threads the evaluator needs.
        let outcome = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: answered.wait(timeout: .seconds(30))) }.start()
        }
        #expect(outcome == .decided(.reject))
    }
}

/// The non-blocking wait (used by the URLSession challenge on Apple platforms).
struct SecurityEvaluatorDecisionTests {
    private let context = ServerTrustContext(host: "h", port: 1, certificateChain: [])

    @Test func anAnswerInTimeIsReturned() async throws {
        try await withDeadline {
            #expect(await ServerTrustEvaluator { _ in .reject }.decision(for: context) == .reject)
            #expect(await ServerTrustEvaluator { $0.host == "h" ? .accept : .reject }.decision(for: context) == .accept)
        }
    }

    @Test func noAnswerInTimeIsNilAndTheEvaluationIsCancelled() async throws {
        let cancelled = SanitizedMutex(false)
        let evaluator = ServerTrustEvaluator(timeout: .milliseconds(50)) { _ in
            try? await Task.sleep(for: .seconds(600))
            cancelled.withLock { $0 = Task.isCancelled }
            return .accept
        }
        try await withDeadline {
            #expect(await evaluator.decision(for: context) == nil)
            #expect(await eventually { cancelled.withLock { $0 } })
        }
    }
}
