import Synchronization
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// A stubbed manager runs on `StubTransport`: the Session layer's rules (redirects, credential
/// scope, challenges, limits, cancellation, invalidation) run as on curl, and every attempt is
/// answered by the registry and recorded.
@Suite("StubTransport")
struct StubTransportTests {
    /// Runs `body` with a manager on the stubs transport, within a deadline; always invalidates it.
    static func withStubbedManager<T: Sendable>(
        configure: @Sendable (URLSessionConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (HTTPStubs, SessionManager) async throws -> T
    ) async throws -> T {
        let stubs = HTTPStubs()
        let configuration = SessionManager.defaultConfiguration()
        configure(configuration)
        let manager = SessionManager(stubs: stubs, configuration: configuration)
        do {
            let result = try await withDeadline { try await body(stubs, manager) }
            await manager.invalidateAndCancel()
            return result
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
    }

    static func request(_ url: String, method: String = "GET", headers: [String: String] = [:]) -> URLRequest {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    static func payload(_ count: Int) -> Data { Data((0..<count).map { UInt8($0 % 251) }) }

    @Test("a 302 to another origin is followed by the Session layer, without Authorization; configuration headers are recorded")
    func crossOriginRedirect() async throws {
        try await Self.withStubbedManager(configure: { $0.httpAdditionalHeaders = ["X-Config": "on"] }) { stubs, manager in
            #expect(manager.runsOnStubTransport)
            stubs.on(.get, "https://a.test/start", respond: .status(302, headers: ["Location": "https://b.test/end"]))
            stubs.on(.get, "https://b.test/end", respond: .text("arrived"))
            let request = Self.request("https://a.test/start", headers: ["Authorization": "Bearer secret"])
            let (body, response) = try await manager.data(for: request)
            #expect(String(decoding: body, as: UTF8.self) == "arrived")
            #expect(response.statusCode == 200 && response.url?.absoluteString == "https://b.test/end")
            let hops = stubs.recordedRequests
            #expect(hops.map(\.url.absoluteString) == ["https://a.test/start", "https://b.test/end"])
            #expect(hops.first?.header("Authorization") == "Bearer secret")
            #expect(hops.last?.header("Authorization") == nil, "a credential never follows a redirect to another origin")
            #expect(hops.allSatisfy { $0.header("X-Config") == "on" })
        }
    }

    @Test("a 307 re-sends the method and the body; a 303 turns the POST into a GET without a body")
    func redirectResends() async throws {
        try await Self.withStubbedManager { stubs, manager in
            stubs.on(.post, "https://api.test/upload", respond: .status(307, headers: ["Location": "/moved"]))
            stubs.on(.post, "https://api.test/moved") { request in .text("\(request.body?.count ?? -1)") }
            stubs.on(.post, "https://api.test/form", respond: .status(303, headers: ["Location": "/done"]))
            stubs.on(.get, "https://api.test/done", respond: .text("done"))
            let body = Self.payload(100_000)
            let (reply, _) = try await manager.upload(for: Self.request("https://api.test/upload", method: "POST"), from: body)
            #expect(String(decoding: reply, as: UTF8.self) == "100000")
            let (done, _) = try await manager.upload(for: Self.request("https://api.test/form", method: "POST"), from: body)
            #expect(String(decoding: done, as: UTF8.self) == "done")
            let recorded = stubs.recordedRequests
            #expect(recorded.map(\.method) == [.post, .post, .post, .get])
            #expect(recorded.map(\.body) == [body, body, body, nil])
        }
    }

    @Test("a redirect loop fails with httpTooManyRedirects after the Session layer's maximum")
    func tooManyRedirects() async throws {
        try await Self.withStubbedManager { stubs, manager in
            stubs.on(.get, "https://api.test/loop", respond: .status(302, headers: ["Location": "/loop"]))
            let error = await expectNetworkingError { try await manager.data(from: URL(string: "https://api.test/loop")!) }
            #expect(error?.kind == .transport(.httpTooManyRedirects))
            #expect(stubs.recordedRequests.count == RedirectRules.maximumRedirects + 1)
        }
    }

    @Test("maxResponseBytes: a declared length over the limit fails at the head; a chunked body over it fails as it arrives")
    func responseLimit() async throws {
        try await Self.withStubbedManager { stubs, manager in
            stubs.on(.get, "https://api.test/big", respond: .data(Self.payload(10_000)))
            // A wrong Content-Length under the limit: the body itself passes it.
            stubs.on(.get, "https://api.test/lying", respond: StubResponse.data(Self.payload(10_000), headers: ["Content-Length": "100"]).chunked(size: 1_000))
            let options = TransferOptions(maxResponseBytes: 5_000)
            for path in ["big", "lying"] {
                let error = await expectNetworkingError { try await manager.data(from: URL(string: "https://api.test/\(path)")!, options: options) }
                #expect(error?.kind == .responseTooLarge(limit: 5_000), "\(path)")
            }
            #expect(await manager.runningTransferCount == 0)
        }
    }

    /// A handler answering 401 Basic unless the request carries `user:pass`.
    static func protected(_ stubs: HTTPStubs) {
        let expected = "Basic " + Data("user:pass".utf8).base64EncodedString()
        stubs.on(.get, "https://api.test/private") { request in
            request.header("Authorization") == expected
                ? .text("welcome")
                : .status(401, headers: ["WWW-Authenticate": "Basic realm=\"api\""])
        }
    }

    @Test("a 401 Basic is answered once with the credential given by setCredential or by the challenge hook", arguments: [false, true])
    func basicChallenge(viaHook: Bool) async throws {
        try await Self.withStubbedManager { stubs, manager in
            Self.protected(stubs)
            let credential = URLCredential(user: "user", password: "pass", persistence: .none)
            if viaHook {
                await manager.setHooks(SessionHooks(challenge: { _ in .useCredential(credential) }))
            } else {
                await manager.setCredential(credential, forHost: "api.test")
            }
            let (body, response) = try await manager.data(from: URL(string: "https://api.test/private")!)
            #expect(response.statusCode == 200 && String(decoding: body, as: UTF8.self) == "welcome")
            #expect(stubs.recordedRequests.map { $0.header("Authorization") == nil } == [true, false])
        }
    }

    @Test("a rejected credential ends with the 401 as the result; with no credential the 401 is the result at once")
    func rejectedChallenge() async throws {
        try await Self.withStubbedManager { stubs, manager in
            Self.protected(stubs)
            let (_, first) = try await manager.data(from: URL(string: "https://api.test/private")!)
            #expect(first.statusCode == 401 && stubs.recordedRequests.count == 1)
            await manager.setCredential(URLCredential(user: "user", password: "wrong", persistence: .none), forHost: "api.test")
            let (_, second) = try await manager.data(from: URL(string: "https://api.test/private")!)
            #expect(second.statusCode == 401)
            #expect(stubs.recordedRequests.count > 2, "the wrong credential was tried")
        }
    }

    @Test("cancelling a delayed or a slowly chunked stub ends the transfer with .cancelled and stops its attempt", arguments: [false, true])
    func cancellation(chunked: Bool) async throws {
        try await Self.withStubbedManager { stubs, manager in
            let response = chunked
                ? StubResponse.data(Self.payload(1_000)).chunked(size: 1, interval: .seconds(1))
                : StubResponse.text("late").delayed(by: .seconds(3600))
            stubs.on(.get, "https://api.test/slow", respond: response)
            let handle = try await manager.dataTask(with: Self.request("https://api.test/slow"))
            #expect(await eventually { stubs.recordedRequests.count == 1 })
            #expect(await manager.runningTransferCount == 1)
            handle.cancel()
            let error = await expectNetworkingError { try await collectEvents(handle) }
            #expect(error?.kind == .cancelled)
            #expect(await manager.runningTransferCount == 0)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test("suspend() pauses a running stubbed data transfer in place, as on curl; resume() carries on without sending the request again")
    func suspendInPlace() async throws {
        try await Self.withStubbedManager { stubs, manager in
            let body = Self.payload(40)
            stubs.on(.get, "https://api.test/drip", respond: StubResponse.data(body).chunked(size: 1, interval: .milliseconds(100)))
            let handle = try await manager.dataTask(with: Self.request("https://api.test/drip"))
            var received = Data()
            for try await event in handle.events {
                guard case .data(let chunk) = event else { continue }
                received.append(chunk)
                guard received.count == 1 else { continue }
                try await handle.suspend()
                #expect(await manager.snapshot(of: handle.id)?.status == .suspended)
                let atSuspend = await manager.snapshot(of: handle.id)?.downloadProgress.completedBytes ?? -1
                // Ten more pieces would have arrived meanwhile, were the pause not real; one may
                // have been on its way when it landed.
                try await Task.sleep(for: .seconds(1))
                let later = await manager.snapshot(of: handle.id)?.downloadProgress.completedBytes ?? -1
                #expect(atSuspend >= 1 && later - atSuspend <= 1, "\(atSuspend) then \(later) bytes while suspended")
                try await handle.resume()
            }
            #expect(received == body)
            #expect(stubs.recordedRequests.count == 1, "resumed in place, not sent again")
        }
    }

    /// A handler that never answers, and says when its wait was cancelled.
    static func hangingHandler(_ cancelled: Flag) -> HTTPStubs.Handler {
        { _ in
            do { try await Task.sleep(for: .seconds(3600)) } catch { cancelled.set() }
            throw CancellationError()
        }
    }

    @Test("the task playing an attempt ends with it: cancelling the transfer, or dropping its handle and its manager, cancels a handler still running")
    func playerEndsWithAttempt() async throws {
        let stubs = HTTPStubs()
        let byCancel = Flag(), byRelease = Flag()
        stubs.on(.get, "https://api.test/cancel", Self.hangingHandler(byCancel))
        stubs.on(.get, "https://api.test/release", Self.hangingHandler(byRelease))
        try await withDeadline {
            let manager = SessionManager(stubs: stubs)
            let handle = try await manager.dataTask(with: Self.request("https://api.test/cancel"))
            #expect(await eventually { stubs.recordedRequests.count == 1 })
            handle.cancel()
            #expect(await eventually { byCancel.isSet })
            #expect(await eventually { await manager.runningTransferCount == 0 })

            let released: WeakManager
            do {
                let doomed = SessionManager(stubs: stubs)
                released = WeakManager(manager: doomed)
                _ = try await doomed.dataTask(with: Self.request("https://api.test/release"))
                #expect(await eventually { stubs.recordedRequests.count == 2 })
            }
            #expect(await eventually { released.manager == nil && byRelease.isSet })
            await manager.invalidateAndCancel()
        }
    }

    @Test("file and streamed uploads are recorded with their bytes, with upload then download progress")
    func uploadsAndProgress() async throws {
        try await Self.withStubbedManager { stubs, manager in
            let body = Self.payload(300_000)
            stubs.on(.put, "https://api.test/blobs/*") { request in
                StubResponse.data(request.body ?? Data()).chunked(size: 100_000, interval: .milliseconds(20))
            }
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("stub-transport-\(UUID().uuidString)")
            try body.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let producer = BodyStreamProducer(length: Int64(body.count)) { _ in InputStream(data: body) }
            for fromFile in [true, false] {
                let handle = fromFile
                    ? try await manager.uploadTask(with: Self.request("https://api.test/blobs/file", method: "PUT"), fromFile: file)
                    : try await manager.uploadTask(with: Self.request("https://api.test/blobs/stream", method: "PUT"), bodyStream: producer)
                let events = try await collectEvents(handle)
                // Progress a reader has not taken yet is coalesced: the upload's pieces come at
                // once, so only its last value is sure; the body's chunks come 20 ms apart.
                let sent = events.compactMap(\.uploadProgressValue)
                let received = events.compactMap(\.downloadProgressValue).map(\.completedBytes)
                #expect(sent.last?.completedBytes == Int64(body.count) && sent.last?.expectedBytes == Int64(body.count))
                #expect(received.count >= 2 && received == received.sorted() && received.last == Int64(body.count))
                let firstResponse = try #require(events.firstIndex { $0.name == "response" })
                #expect(!events[firstResponse...].contains { $0.name == "uploadProgress" }, "the body is sent before the answer")
                var echoed = Data()
                for case .data(let chunk) in events { echoed.append(chunk) }
                #expect(echoed == body)
            }
            #expect(stubs.recordedRequests.map(\.body) == [body, body])
            #expect(stubs.recordedRequests.map(\.url.lastPathComponent) == ["file", "stream"])
        }
    }

    /// A manager whose registry is released as soon as this returns.
    static func managerWithReleasedStubs() -> SessionManager {
        let stubs = HTTPStubs()
        stubs.on(nil, "*", respond: .text("never"))
        return SessionManager(stubs: stubs)
    }

    @Test("a released HTTPStubs answers nothing: unmatchedStub")
    func releasedRegistry() async throws {
        let manager = Self.managerWithReleasedStubs()
        try await withDeadline {
            let error = await expectNetworkingError { try await manager.data(from: URL(string: "https://api.test/x")!) }
            #expect(error?.kind == .unmatchedStub)
            #expect(error?.message.contains("released") == true)
        }
        await manager.invalidateAndCancel()
    }

    @Test("a stub head that breaks the field rules fails like a bad server head; a HEAD gets no body")
    func headRules() async throws {
        try await Self.withStubbedManager { stubs, manager in
            stubs.on(.get, "https://api.test/bad", respond: .text("x", headers: ["Bad Name": "v"]))
            stubs.on(nil, "https://api.test/doc", respond: .text("12345"))
            let error = await expectNetworkingError { try await manager.data(from: URL(string: "https://api.test/bad")!) }
            #expect(error?.kind == .transport(.badServerResponse))
            let (body, response) = try await manager.data(for: Self.request("https://api.test/doc", method: "HEAD"))
            #expect(body.isEmpty && response.value(forHTTPHeaderField: "Content-Length") == "5")
        }
    }

    @Test("invalidate() with nothing running returns at once; with a transfer running it lets it finish")
    func invalidate() async throws {
        let stubs = HTTPStubs()
        stubs.on(.get, "https://api.test/quick", respond: .text("quick"))
        stubs.on(.get, "https://api.test/slow", respond: StubResponse.data(Self.payload(10)).chunked(size: 1, interval: .milliseconds(20)))
        let idle = SessionManager(stubs: stubs)
        let busy = SessionManager(stubs: stubs)
        try await withDeadline {
            _ = try await idle.data(from: URL(string: "https://api.test/quick")!)
            await idle.invalidate()
            #expect(await !idle.isActive)
            let late = await expectNetworkingError { try await idle.data(from: URL(string: "https://api.test/quick")!) }
            #expect(late?.kind == .sessionInvalidated)

            let running = Task { try await busy.data(from: URL(string: "https://api.test/slow")!) }
            #expect(await eventually { await busy.runningTransferCount == 1 })
            await busy.invalidate()
            let (body, _) = try await running.value
            #expect(body == Self.payload(10), "a running transfer finishes")
            #expect(await busy.activeTransferCount == 0)
        }
    }

    @Test("invalidateAndCancel() cancels a running stubbed transfer and returns")
    func invalidateAndCancel() async throws {
        let stubs = HTTPStubs()
        stubs.on(.get, "https://api.test/never", respond: StubResponse.text("late").delayed(by: .seconds(3600)))
        let manager = SessionManager(stubs: stubs)
        try await withDeadline {
            let running = Task { try await manager.data(from: URL(string: "https://api.test/never")!) }
            #expect(await eventually { stubs.recordedRequests.count == 1 })
            await manager.invalidateAndCancel()
            let error = await expectNetworkingError { try await running.value }
            #expect(error?.kind == .sessionInvalidated)
            #expect(await manager.runningTransferCount == 0)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test("the URLProtocol path stays reachable: on URLSession a stubbed 302 is returned as it is")
    func urlSessionPath() async throws {
        let stubs = HTTPStubs()
        stubs.on(.get, "https://a.test/start", respond: .status(302, headers: ["Location": "https://b.test/end"]))
        let manager = SessionManager(stubs: stubs, transport: .urlSession)
        try await withDeadline {
            #expect(!manager.runsOnStubTransport)
            let (_, response) = try await manager.data(from: URL(string: "https://a.test/start")!)
            #expect(response.statusCode == 302)
            #expect(stubs.recordedRequests.count == 1)
        }
        await manager.invalidateAndCancel()
    }
}

/// A manager not kept alive.
struct WeakManager: Sendable { weak var manager: SessionManager? }

/// A flag set from any task.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}

extension SessionManager {
    /// Whether the manager's engine is the stubs transport.
    nonisolated var runsOnStubTransport: Bool {
        if case .stubs = engine { return true }
        return false
    }
}
