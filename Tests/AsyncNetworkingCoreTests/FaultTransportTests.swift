@testable import AsyncNetworkingTestSupport

/// Server-side faults at the transport level: each names the exact error it expects, and every
/// case runs under a deadline so a hang is a failure.
@Suite("Fault suite: transport", .tags(.fault))
struct FaultTransportTests {
    /// A server and a manager with the default timeout (only the two timeout cases shorten it:
    /// on a busy runner a 1 s idle timeout can fire on any request).
    private func withServer<T: Sendable>(_ body: @escaping @Sendable (LoopbackServer, SessionManager) async throws -> T) async throws -> T {
        try await withServerAndManager(body)
    }

    private func expectTransport(
        _ path: String, _ expected: URLError.Code, response expectResponse: Bool, shortTimeout: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let timeout: Double = shortTimeout ? 1 : 60
        try await withServerAndManager(configure: { $0.timeoutIntervalForRequest = timeout }) { server, manager in
            let error = await expectNetworkingError { try await manager.data(from: server.url(path)) }
            #expect(error?.kind == .transport(expected), "\(path): \(String(describing: error))", sourceLocation: sourceLocation)
            #expect((error?.response != nil) == expectResponse, "\(path): response present", sourceLocation: sourceLocation)
            #expect(error?.request?.url == server.url(path), sourceLocation: sourceLocation)
            #expect(await manager.activeTransferCount == 0, sourceLocation: sourceLocation)
        }
    }

    @Test func connectionResetBeforeTheResponse() async throws {
        try await expectTransport("/fault/reset", .networkConnectionLost, response: false)
    }

    @Test func serverClosesMidBody() async throws {
        try await expectTransport("/drop?after=1000&total=100000", .networkConnectionLost, response: true)
    }

    @Test func contentLengthLargerThanTheBody() async throws {
        try await expectTransport("/fault/short-body", .networkConnectionLost, response: true)
    }

    @Test func malformedStatusLine() async throws {
        try await expectTransport("/fault/bad-status-line", .badServerResponse, response: false)
    }

    @Test func malformedHeader() async throws {
        try await expectTransport("/fault/bad-header", .badServerResponse, response: false)
    }

    @Test func emptyReply() async throws {
        try await expectTransport("/fault/close", .badServerResponse, response: false)
    }

    @Test func serverNeverAnswers() async throws {
        try await expectTransport("/fault/no-response", .timedOut, response: false, shortTimeout: true)
    }

    @Test func dripSlowerThanTheTimeout() async throws {
        // The body stalls after its first byte for far longer than the 1 s timeout (a gap only a
        // little longer than the timeout can slip past FoundationNetworking's timer under load).
        try await expectTransport("/drip?bytes=10&chunks=10&delay=\(neverEnding)", .timedOut, response: true, shortTimeout: true)
    }

    @Test func redirectLoop() async throws {
        try await expectTransport("/redirect-loop", .httpTooManyRedirects, response: false)
    }

    @Test func connectionRefused() async throws {
        let port = try RefusingPort()
        defer { port.close() }
        let url = port.url("/bytes/1")
        try await withDeadline {
            let manager = SessionManager()
            let error = await expectNetworkingError { try await manager.data(from: url) }
            #expect(error?.kind == .transport(.cannotConnectToHost))
            await manager.invalidateAndCancel()
        }
    }

    @Test func serverErrorIsAResponseAtTheSessionLevel() async throws {
        try await withServer { server, manager in
            let (body, response) = try await manager.data(from: server.url("/status/503"))
            #expect(response.statusCode == 503)
            #expect(String(decoding: body, as: UTF8.self) == "status 503")
        }
    }

    @Test func unauthorizedWithoutCredentialDoesNotHang() async throws {
        try await withServer { server, manager in
            let (_, response) = try await manager.data(from: server.url("/basic-auth/u/p"))
            #expect(response.statusCode == 401)
        }
    }

    @Test func unauthorizedWithWrongCredentialStopsAfterBoundedAttempts() async throws {
        try await withServer { server, manager in
            await manager.setCredential(URLCredential(user: "u", password: "wrong", persistence: .none), forHost: "127.0.0.1")
            let (_, response) = try await manager.data(from: server.url("/basic-auth/u/p"))
            #expect(response.statusCode == 401)
            #expect(server.requests.filter { $0.path == "/basic-auth/u/p" }.count <= 1 + 2)
        }
    }

    @Test func bodyOverMaxResponseBytes() async throws {
        try await withServer { server, manager in
            let options = TransferOptions(maxResponseBytes: 4096)
            let error = await expectNetworkingError { try await manager.data(from: server.url("/bytes/100000"), options: options) }
            #expect(error?.kind == .responseTooLarge(limit: 4096))
        }
    }

    @Test func gzipBombOverTheLimitIsStoppedWhileDecompressing() async throws {
        try await withServer { server, manager in
            let options = TransferOptions(maxResponseBytes: 1 << 20)
            // ~100 KB on the wire that would inflate to 1 GiB.
            let error = await expectNetworkingError { try await manager.data(from: server.url("/gzip/1073741824"), options: options) }
            #expect(error?.kind == .responseTooLarge(limit: 1 << 20))
        }
    }

    @Test func interimContinueBeforeTheFinalResponse() async throws {
        try await withServer { server, manager in
            let (body, response) = try await manager.data(from: server.url("/continue"))
            #expect(response.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self) == "after continue")
        }
    }
}
