@testable import AsyncNetworkingTestSupport

/// The security policy and its ``ServerTrustEvaluator`` on `wss`, as for HTTP over curl: the
/// evaluator is asked once per connection after curl's checks, before any byte of the opening
/// handshake; a refusal (or a policy failure) sends nothing and throws `.serverTrustFailed`.
///
/// Held answers use ``heldEvaluator(_:timeout:)``, which stops waiting once its task is cancelled:
/// ``EvaluatorProbe/heldEvaluator(timeout:)`` ignores cancellation on purpose and then spins on a
/// thread of the cooperative pool until released — two such spinners at once (this suite runs in
/// parallel) would take both threads of a 2-core machine and stall the whole test run.
@Suite("WebSocket server trust (wss)", .enabled(if: WebSocketTestServer.python != nil && TestPKI.isAvailable, "needs python3 and openssl"))
struct WebSocketTrustTests {
    /// Records the context, then answers `.accept` once `probe` is released — or gives up
    /// (`.reject`, ignored by then) as soon as its task is cancelled.
    private func heldEvaluator(_ probe: EvaluatorProbe, timeout: Duration = .seconds(60)) -> ServerTrustEvaluator {
        let inner = probe.evaluator()
        return ServerTrustEvaluator(timeout: timeout) { context in
            _ = await inner.evaluate(context) // records the call
            while !Task.isCancelled, !probe.isReleased {
                try? await Task.sleep(for: .milliseconds(10))
            }
            return Task.isCancelled ? .reject : .accept
        }
    }

    private func withTLSServer(_ body: @escaping @Sendable (WebSocketTestServer, TestPKI) async throws -> Void) async throws {
        let pki = try await TestPKI.make()
        let server = try await startWebSocketServer { try WebSocketTestServer(certificate: pki.file("good-chain.pem"), key: pki.file("good.key")) }
        defer { server.stop() }
        try await withDeadline { try await body(server, pki) }
    }

    /// The handshake targets the server has received, asked over a connection trusted by roots.
    private func requests(_ server: WebSocketTestServer, _ pki: TestPKI) async throws -> [String] {
        let manager = SessionManager(transport: .curl, securityPolicy: SecurityPolicy(evaluation: .customRoots([try pki.certificate("ca.pem")])))
        let socket = try await manager.webSocket(to: server.url("/requests"))
        var iterator = socket.messages.makeAsyncIterator()
        guard case .text(let text)? = try await iterator.next() else { return ["?"] }
        try await socket.close()
        return text.split(separator: "\n").map(String.init)
    }

    @Test func anAcceptingEvaluatorSeesTheChainAndTheSocketOpens() async throws {
        try await withTLSServer { server, pki in
            let probe = EvaluatorProbe()
            let policy = SecurityPolicy(evaluation: .customRoots([try pki.certificate("ca.pem")]), serverTrustEvaluator: probe.evaluator())
            let manager = SessionManager(transport: .curl, securityPolicy: policy)
            let socket = try await manager.webSocket(to: server.url("/echo"))
            try await socket.send(.text("trusted"))
            var iterator = socket.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text("trusted"))
            try await socket.close()
            #expect(probe.calls == 1)
            let context = try #require(probe.contexts.first)
            #expect(context.host == "127.0.0.1")
            #expect(context.port == server.port)
            #expect(context.leaf == (try pki.certificate("good.pem")))
        }
    }

    @Test func aRejectingEvaluatorRefusesBeforeTheHandshakeIsSent() async throws {
        try await withTLSServer { server, pki in
            let probe = EvaluatorProbe()
            let policy = SecurityPolicy(evaluation: .customRoots([try pki.certificate("ca.pem")]), serverTrustEvaluator: probe.evaluator { _ in .reject })
            let manager = SessionManager(transport: .curl, securityPolicy: policy)
            await expectWebSocketError({ _ = try await manager.webSocket(to: server.url("/echo?rejected")) }) {
                $0 == .serverTrustFailed(host: "127.0.0.1", reason: .rejectedByEvaluator)
            }
            #expect(probe.calls == 1)
            #expect(try await requests(server, pki).contains { $0.contains("rejected") } == false, "no handshake byte after TLS")
        }
    }

    @Test func anEvaluatorThatDoesNotAnswerInTimeRefuses() async throws {
        try await withTLSServer { server, pki in
            let probe = EvaluatorProbe()
            let policy = SecurityPolicy(
                evaluation: .customRoots([try pki.certificate("ca.pem")]), serverTrustEvaluator: heldEvaluator(probe, timeout: .milliseconds(200))
            )
            let manager = SessionManager(transport: .curl, securityPolicy: policy)
            await expectWebSocketError({ _ = try await manager.webSocket(to: server.url("/echo?late")) }) {
                $0 == .serverTrustFailed(host: "127.0.0.1", reason: .evaluatorTimedOut)
            }
            probe.release()
            #expect(try await requests(server, pki).contains { $0.contains("late") } == false)
        }
    }

    @Test func cancellingWhileTheEvaluatorDecidesEndsAtOnce() async throws {
        try await withTLSServer { server, pki in
            let probe = EvaluatorProbe()
            let policy = SecurityPolicy(evaluation: .customRoots([try pki.certificate("ca.pem")]), serverTrustEvaluator: heldEvaluator(probe))
            let manager = SessionManager(transport: .curl, securityPolicy: policy)
            let task = Task { try await manager.webSocket(to: server.url("/echo?cancelled")) }
            while probe.calls == 0 { try await Task.sleep(for: .milliseconds(10)) }
            task.cancel()
            await expectWebSocketError({ _ = try await task.value }) { $0 == .cancelled }
            probe.release()
            #expect(try await requests(server, pki).contains { $0.contains("cancelled") } == false)
        }
    }

    @Test func aPinMismatchIsRefusedBeforeTheEvaluator() async throws {
        try await withTLSServer { server, pki in
            let probe = EvaluatorProbe()
            let policy = SecurityPolicy(
                evaluation: .pinnedPublicKeys([try pki.pin("rekeyed")], roots: [try pki.certificate("ca.pem")]), serverTrustEvaluator: probe.evaluator()
            )
            let manager = SessionManager(transport: .curl, securityPolicy: policy)
            await expectWebSocketError({ _ = try await manager.webSocket(to: server.url("/echo?pinned")) }) {
                $0 == .serverTrustFailed(host: "127.0.0.1", reason: .publicKeyPinMismatch)
            }
            #expect(probe.calls == 0)
            #expect(try await requests(server, pki).contains { $0.contains("pinned") } == false)
        }
    }

    @Test func anUntrustedServerIsClassifiedAsForHTTP() async throws {
        try await withTLSServer { server, _ in
            let manager = SessionManager(transport: .curl) // the system roots do not know the test CA
            await expectWebSocketError({ _ = try await manager.webSocket(to: server.url("/echo")) }) {
                $0 == .serverTrustFailed(host: "127.0.0.1", reason: .untrustedRoot)
            }
        }
    }
}
