#if canImport(Glibc)
import Glibc
#endif
import Synchronization
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// The per-transfer rules at the edges of ``TransferStateMachine``, through the public API: a pause
/// lands at once when the attempt has already ended; a late hook answer after pause and resume is
/// ignored; invalidating while a pause lands ends the transfer; a suspension holds across a followed
/// redirect; the response hook decides about a 401 whose challenge was refused; a refused redirect
/// fails without waiting for the 3xx body.
@Suite struct TransferMachineEdgeRuleTests {
    /// Session events seen so far, for conditions on them.
    private final class SessionEventLog: Sendable {
        private final class Events: Sendable { let list = SanitizedMutex<[SessionEvent]>([]) }
        private let events = Events()
        private let task: Task<Void, Never>

        init(_ stream: AsyncStream<SessionEvent>) {
            let events = events
            task = Task { for await event in stream { events.list.withLock { $0.append(event) } } }
        }

        func suspensions(of id: TransferID) -> Int {
            events.list.withLock { $0.filter { if case .transferSuspended(id) = $0 { true } else { false } }.count }
        }

        func stop() { task.cancel() }
    }

    /// A pause asked for while the response hook decides, after the attempt has already ended
    /// (its completion held back with the head), used to wait for a cancel confirmation that
    /// could never come: the pause never landed. It now lands at once.
    @Test func aPauseLandsAtOnceWhenTheAttemptHasAlreadyEnded() async throws {
        try await withServerAndManager { server, manager in
            let log = SessionEventLog(await manager.sessionEvents())
            defer { log.stop() }
            let gate = HookGate()
            let calls = Atomic<Int>(0)
            await manager.setHooks(SessionHooks(response: { _, _ in
                if calls.add(1, ordering: .relaxed).newValue == 1 { await gate.enter() }
                return .allow
            }))
            let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/bytes/100")))
            await gate.waitUntilEntered()
            // The 100 bytes and the end of the exchange arrive meanwhile, held back with the head.
            try await Task.sleep(for: .milliseconds(500))
            try await handle.suspend()
            #expect(await eventually { log.suspensions(of: handle.id) == 1 }, "the pause landed")
            gate.release()
            try await handle.resume()
            let events = try await collectEvents(handle)
            guard case .downloaded(let url)? = events.first(where: { $0.name == "downloaded" }) else {
                Issue.record("no downloaded event: \(events.map(\.name))")
                return
            }
            #expect(try Data(contentsOf: url).count == 100)
            #expect(calls.load(ordering: .relaxed) == 2, "the resumed attempt's head is decided again")
        }
    }

    /// The response hook's answer about an attempt that was paused (and the transfer resumed with
    /// a new attempt since) used to be applied to the new attempt: a late `.cancel` failed the
    /// resumed transfer. A late answer now does nothing.
    @Test func aLateResponseHookAnswerAfterPauseAndResumeIsIgnored() async throws {
        try await withServerAndManager { server, manager in
            let log = SessionEventLog(await manager.sessionEvents())
            defer { log.stop() }
            let serverGate = UUID().uuidString
            defer { server.openGate(serverGate) }
            let hookGate = HookGate()
            let calls = Atomic<Int>(0)
            await manager.setHooks(SessionHooks(response: { _, _ in
                guard calls.add(1, ordering: .relaxed).newValue == 1 else { return .allow }
                await hookGate.enter()
                return .cancel
            }))
            let size = 100_000
            let request = URLRequest(url: server.url("/gated-bytes?bytes=\(size)&after=\(size / 2)&gate=\(serverGate)"))
            let handle = try await manager.downloadTask(with: request)
            await hookGate.waitUntilEntered()
            try await handle.suspend()
            #expect(await eventually { log.suspensions(of: handle.id) == 1 }, "the pause landed")
            try await handle.resume()
            // The new attempt's head is allowed; its body waits at the server's gate.
            #expect(await eventually { calls.load(ordering: .relaxed) == 2 })
            hookGate.release() // the first attempt's `.cancel`, now late
            try await Task.sleep(for: .milliseconds(300))
            server.openGate(serverGate)
            let events = try await collectEvents(handle)
            guard case .downloaded(let url)? = events.first(where: { $0.name == "downloaded" }) else {
                Issue.record("no downloaded event: \(events.map(\.name))")
                return
            }
            #expect(try Data(contentsOf: url).count == size)
        }
    }

    /// `invalidate()` while a pause was landing left the paused transfer registered, held, and
    /// on curl `invalidate()` never returned. The transfer now fails with `sessionInvalidated`.
    @Test func invalidatingWhileAPauseLandsEndsTheTransfer() async throws {
        try await withServerAndManager { server, manager in
            let serverGate = UUID().uuidString
            defer { server.openGate(serverGate) }
            let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/gated-bytes?bytes=100000&gate=\(serverGate)")))
            #expect(await eventually { (await manager.snapshot(of: handle.id)?.downloadProgress.completedBytes ?? 0) > 0 })
            // Both in one job of the manager: the pause cannot land before `invalidate()` starts.
            await Self.suspendThenInvalidate(manager, handle.id)
            let error = await expectNetworkingError { try await collectEvents(handle) }
            #expect(error?.kind == .sessionInvalidated)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    private static func suspendThenInvalidate(_ manager: isolated SessionManager, _ id: TransferID) async {
        try? manager.suspendTransfer(id)
        await manager.invalidate()
    }

    /// A transfer suspended in place (curl) while its redirect was decided used to run on,
    /// unpaused, in the attempt that followed the redirect: the suspension now holds across
    /// attempts until `resume()`, as `suspend()` promises.
    @Test func aSuspensionInPlaceHoldsAcrossAFollowedRedirect() async throws {
        try await withServerAndManager { server, manager in
            guard manager.transport == .curl else { return } // URLSession cannot suspend a data transfer
            let gate = HookGate()
            await manager.setHooks(SessionHooks(redirect: { context in
                await gate.enter()
                return context.proposedRequest
            }))
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/redirect/1")))
            await gate.waitUntilEntered()
            try await handle.suspend()
            gate.release()
            #expect(await eventually { server.requests.contains { $0.path == "/redirect/0" } }, "the redirect was followed")
            try await Task.sleep(for: .milliseconds(300))
            #expect(await manager.snapshot(of: handle.id)?.status == .suspended, "still suspended after the redirect")
            try await handle.resume()
            let events = try await collectEvents(handle)
            let body = events.reduce(into: Data()) { if case .data(let chunk) = $1 { $0.append(chunk) } }
            #expect(String(decoding: body, as: UTF8.self) == "redirected")
        }
    }

    /// A 401 that becomes the result (its challenge refused) used to skip the response hook,
    /// which decides about every other final response: it now decides about the 401 too.
    @Test func theResponseHookDecidesAboutA401WhoseChallengeWasRefused() async throws {
        try await withServerAndManager { server, manager in
            let statuses = SanitizedMutex<[Int]>([])
            await manager.setHooks(SessionHooks(
                challenge: { _ in .refuse },
                response: { response, _ in
                    statuses.withLock { $0.append(response.statusCode) }
                    return .allow
                }
            ))
            let (_, response) = try await manager.data(for: URLRequest(url: server.url("/basic-auth/user/secret")))
            #expect(response.statusCode == 401)
            #expect(statuses.withLock { $0 } == [401])
        }
    }

    enum RefusedRedirect: String, CaseIterable, Sendable { case unsupportedScheme, tooMany }

    /// A redirect refused with an error (to an unsupported scheme, one too many) used to wait for
    /// the whole 3xx body before failing; against a server that never finishes it, forever. The
    /// transfer now fails at once. (Curl only: FoundationNetworking reads a 3xx body before it
    /// asks about the redirect at all.)
    @Test(arguments: RefusedRedirect.allCases)
    func aRefusedRedirectFailsWithoutWaitingForThe3xxBody(_ refusal: RefusedRedirect) async throws {
        let server = try StalledRedirectServer(location: refusal == .unsupportedScheme ? "ftp://127.0.0.1/file" : "/again")
        defer { server.stop() }
        let manager = SessionManager()
        guard manager.transport == .curl else { return await manager.invalidateAndCancel() }
        let error: NetworkingError? = try await withDeadline(hangDeadline) {
            await expectNetworkingError { try await manager.data(for: URLRequest(url: server.url("/first"))) }
        }
        await manager.invalidateAndCancel()
        switch refusal {
        case .unsupportedScheme: #expect(error?.kind == .unsupportedScheme("ftp"))
        case .tooMany: #expect(error?.kind == .transport(.httpTooManyRedirects))
        }
    }
}

/// A server that answers every request with `302` to `location`, announces a 100 000-byte body,
/// sends 10 bytes of it and then holds the connection open without another byte (until `stop()`).
final class StalledRedirectServer: Sendable {
    private let connections: RawSocketServer
    private let location: String

    /// The port it listens on.
    var port: UInt16 { connections.port }

    init(location: String) throws {
        self.location = location
        connections = try RawSocketServer()
        connections.start { [self] client in serve(client) }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Stops the server and ends every connection.
    func stop() { connections.stop() }

    private func serve(_ client: Int32) {
        // Read the request head, answer, then hold the connection until the client closes it.
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while !(buffer.count >= 4 && buffer.suffix(4).elementsEqual([13, 10, 13, 10])) {
            let count = read(client, &chunk, chunk.count)
            if count <= 0 { return }
            buffer += chunk[0..<count]
        }
        let text = "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 100000\r\n\r\n0123456789"
        var bytes = Array(text.utf8)
        _ = write(client, &bytes, bytes.count)
        while read(client, &chunk, chunk.count) > 0 {}
    }
}
