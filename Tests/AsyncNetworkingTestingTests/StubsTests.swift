@testable import AsyncNetworkingTesting
@testable import AsyncNetworkingTestSupport

/// A user's code under test (an HTTPClient with a base URL, decoding, uploads, downloads, event
/// loops) against `HTTPStubs`, with no server.
@Suite("Stubs")
struct StubsTests {
    struct User: Codable, Equatable, Sendable { var id: Int; var name: String }
    struct NewUser: Codable, Equatable, Sendable { var name: String }

    /// The code under test: a tiny API wrapper over HTTPClient.
    struct UsersAPI: Sendable {
        let client: HTTPClient
        func user(_ id: Int) async throws -> User { try await client.get("users/\(id)", as: User.self) }
        func create(_ name: String) async throws -> User {
            var client = client
            client.requestSerializer = JSONRequestSerializer()
            return try await client.post("users", parameters: .encodable(NewUser(name: name)), as: User.self)
        }
    }

    /// Runs `body` with a stubbed manager and a client on `https://api.test/v1`, within a deadline.
    static func withStubs<T: Sendable>(
        _ body: @escaping @Sendable (HTTPStubs, SessionManager, HTTPClient) async throws -> T
    ) async throws -> T {
        let stubs = HTTPStubs()
        let manager = SessionManager(stubs: stubs)
        let client = HTTPClient(manager: manager, baseURL: URL(string: "https://api.test/v1"))
        do {
            let result = try await withDeadline { try await body(stubs, manager, client) }
            await manager.invalidateAndCancel()
            return result
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
    }

    @Test("an HTTPClient with a base URL decodes a stubbed JSON response; the request is recorded")
    func decodesThroughTheClient() async throws {
        try await Self.withStubs { stubs, manager, client in
            #expect(manager.transport == .urlSession)
            stubs.on(.get, "https://api.test/v1/users/*") { request in
                .json(User(id: Int(request.url.lastPathComponent) ?? -1, name: "Ada"))
            }
            let user = try await UsersAPI(client: client).user(42)
            #expect(user == User(id: 42, name: "Ada"))
            let recorded = try #require(stubs.recordedRequests.first)
            #expect(stubs.recordedRequests.count == 1)
            #expect(recorded.method == .get)
            #expect(recorded.url.absoluteString == "https://api.test/v1/users/42")
            #expect(recorded.header("user-agent") != nil, "the client's default headers")
            #expect(recorded.body == nil)
        }
    }

    @Test("a POST's method, headers and JSON body are recorded and visible to the handler")
    func recordsBodies() async throws {
        try await Self.withStubs { stubs, _, client in
            stubs.on(.post, "/v1/users") { request in
                let new = try request.decodeBody(as: NewUser.self)
                return .json(User(id: 7, name: new.name), status: 201)
            }
            let made = try await UsersAPI(client: client).create("Grace")
            #expect(made == User(id: 7, name: "Grace"))
            let recorded = try #require(stubs.recordedRequests(.post, "/v1/users").first)
            #expect(recorded.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(try recorded.decodeBody(as: NewUser.self) == NewUser(name: "Grace"))
        }
    }

    @Test("uploads from Data and from a file reach the stub with their bodies")
    func uploadBodies() async throws {
        try await Self.withStubs { stubs, manager, _ in
            stubs.on(.put, "https://api.test/blobs/*") { request in .text("\(request.body?.count ?? -1)") }
            var request = URLRequest(url: URL(string: "https://api.test/blobs/a")!)
            request.httpMethod = "PUT"
            let payload = Data((0..<100_000).map { UInt8($0 % 251) })
            let (reply, _) = try await manager.upload(for: request, from: payload)
            #expect(String(decoding: reply, as: UTF8.self) == "100000")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("stubs-\(UUID().uuidString)")
            try payload.write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            request.url = URL(string: "https://api.test/blobs/b")!
            let (fileReply, _) = try await manager.upload(for: request, fromFile: file)
            #expect(String(decoding: fileReply, as: UTF8.self) == "100000")
            #expect(stubs.recordedRequests.map(\.body) == [payload, payload])
        }
    }

    @Test("status, headers and body of a failing response reach the caller's error")
    func statusHeadersBody() async throws {
        try await Self.withStubs { stubs, manager, client in
            stubs.on(.get, "/v1/users/*", respond: .json(Data("{\"error\":\"gone\"}".utf8), status: 410, headers: ["X-Trace": "t-1"]))
            let error = await expectNetworkingError { try await UsersAPI(client: client).user(1) }
            #expect(error?.kind == .unacceptableStatusCode(410))
            #expect(error?.body == Data("{\"error\":\"gone\"}".utf8))
            #expect(error?.response?.value(forHTTPHeaderField: "X-Trace") == "t-1")
            let (body, response) = try await manager.data(from: URL(string: "https://api.test/v1/users/2")!)
            #expect(response.statusCode == 410 && body.count == 16)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "16")
        }
    }

    @Test("injected errors: a URLError code becomes a transport error; a handler's NetworkingError is thrown as is")
    func errors() async throws {
        try await Self.withStubs { stubs, _, client in
            stubs.on(.get, "/v1/offline", respond: .failure(.notConnectedToInternet))
            stubs.on(.get, "/v1/slow", respond: StubResponse.failure(.timedOut).delayed(by: .milliseconds(50)))
            stubs.on(.get, "/v1/custom") { _ in throw NetworkingError(.authenticationFailed, "token expired") }
            let offline = await expectNetworkingError { try await client.request(.get, "offline") }
            #expect(offline?.kind == .transport(.notConnectedToInternet))
            let slow = await expectNetworkingError { try await client.request(.get, "slow") }
            #expect(slow?.kind == .transport(.timedOut))
            let custom = await expectNetworkingError { try await client.request(.get, "custom") }
            #expect(custom?.kind == .authenticationFailed)
            #expect(custom?.message == "token expired")
        }
    }

    @Test("a request no stub matches fails with unmatchedStub naming it, and is still recorded")
    func unmatched() async throws {
        try await Self.withStubs { stubs, _, client in
            stubs.on(.get, "/v1/users/*", respond: .json(User(id: 1, name: "a")))
            let wrongPath = await expectNetworkingError { try await client.request(.get, "teams/1") }
            #expect(wrongPath?.kind == .unmatchedStub)
            #expect(wrongPath?.message.contains("GET https://api.test/v1/teams/1") == true)
            let wrongMethod = await expectNetworkingError { try await client.request(.delete, "users/1") }
            #expect(wrongMethod?.kind == .unmatchedStub)
            #expect(stubs.recordedRequests.map(\.method) == [.get, .delete])
        }
    }

    @Test("the stub added last wins; a nil method matches any; patterns can require a query")
    func matchingOrder() async throws {
        try await Self.withStubs { stubs, _, client in
            stubs.on(nil, "/v1/*", respond: .text("any"))
            stubs.on(.get, "/v1/search?q=*", respond: .text("search"))
            let any = try await client.request(.post, "x").value
            let search = try await client.request(.get, "search", parameters: ["q": "swift"]).value
            let noQuery = try await client.request(.get, "search").value
            #expect(String(decoding: any, as: UTF8.self) == "any")
            #expect(String(decoding: search, as: UTF8.self) == "search")
            #expect(String(decoding: noQuery, as: UTF8.self) == "any")
            stubs.removeAllStubs()
            let none = await expectNetworkingError { try await client.request(.get, "x") }
            #expect(none?.kind == .unmatchedStub)
        }
    }

    @Test("a delayed response is cancelled with the caller's task")
    func delayAndCancellation() async throws {
        try await Self.withStubs { stubs, manager, client in
            stubs.on(.get, "/v1/never", respond: StubResponse.text("late").delayed(by: .seconds(3600)))
            let call = Task { try await client.request(.get, "never") }
            #expect(await eventually { stubs.recordedRequests.count == 1 })
            call.cancel()
            let error = await expectNetworkingError { try await call.value }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test("a body streamed in chunks gives response, data, progress and completion events in order")
    func events() async throws {
        try await Self.withStubs { stubs, _, client in
            let body = Data((0..<100_000).map { UInt8($0 % 256) })
            stubs.on(.get, "/v1/big", respond: StubResponse.data(body).chunked(size: 10_000, interval: .milliseconds(2)))
            let handle = try await client.dataTask(.get, "big")
            let events = try await collectEvents(handle)
            #expect(events.first?.name == "response")
            #expect(events.last?.name == "completed")
            var received = Data()
            var progress: [Int64] = []
            for event in events {
                if case .data(let chunk) = event { received.append(chunk) }
                if let value = event.downloadProgressValue {
                    progress.append(value.completedBytes)
                    #expect(value.expectedBytes == 100_000)
                }
            }
            #expect(received == body)
            // Progress coalesces while unread (only the newest is kept), so how many arrive depends
            // on when the reader runs: at least the last one, in order.
            #expect(!progress.isEmpty)
            #expect(progress == progress.sorted() && progress.last == 100_000)
        }
    }

    @Test("a download is written to its destination from the stubbed body")
    func download() async throws {
        try await Self.withStubs { stubs, manager, _ in
            let body = Data((0..<50_000).map { UInt8($0 % 7) })
            stubs.on(.get, "https://files.test/*", respond: .data(body))
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("stubs-\(UUID().uuidString).bin")
            defer { try? FileManager.default.removeItem(at: target) }
            let (location, response) = try await manager.download(from: URL(string: "https://files.test/report.bin")!, to: .file(target))
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: location) == body)
        }
    }

    @Test("Server-Sent Events from stubs: the EventSource reconnects with Last-Event-ID and stops on 204")
    func eventSourceOnStubs() async throws {
        try await Self.withStubs { stubs, manager, _ in
            stubs.on(.get, "https://api.test/feed") { request in
                switch request.header("Last-Event-ID") {
                case nil: .data(Data("retry: 10\n\nid: 1\ndata: a\n\nid: 2\ndata: b\n\n".utf8), contentType: "text/event-stream")
                case "2": .data(Data("id: 3\ndata: c\n\n".utf8), contentType: "text/event-stream")
                default: .status(204)
                }
            }
            var events: [String] = []
            for try await event in manager.serverSentEvents(for: URLRequest(url: URL(string: "https://api.test/feed")!)) {
                events.append(event.data)
            }
            #expect(events == ["a", "b", "c"])
            #expect(stubs.recordedRequests.map { $0.header("Last-Event-ID") } == [nil, "2", "3"])
        }
    }

    @Test("two managers with their own stubs never see each other's", arguments: 0..<3)
    func isolation(_ round: Int) async throws {
        let first = HTTPStubs(), second = HTTPStubs()
        first.on(.get, "https://api.test/who", respond: .text("first"))
        second.on(.get, "https://api.test/who", respond: .text("second"))
        let managers = (SessionManager(stubs: first), SessionManager(stubs: second))
        try await withDeadline {
            async let a = managers.0.data(from: URL(string: "https://api.test/who")!).0
            async let b = managers.1.data(from: URL(string: "https://api.test/who")!).0
            let (one, two) = try await (a, b)
            #expect(String(decoding: one, as: UTF8.self) == "first")
            #expect(String(decoding: two, as: UTF8.self) == "second")
        }
        #expect(first.recordedRequests.count == 1 && second.recordedRequests.count == 1)
        await managers.0.invalidateAndCancel()
        await managers.1.invalidateAndCancel()
    }

    @Test("patterns (pure): absolute or path, * across segments, the query only when asked for")
    func patterns() {
        let url = URL(string: "https://api.test/v1/users/42/photos?size=big#top")!
        #expect(StubPattern("https://api.test/v1/users/*").matches(url))
        #expect(StubPattern("/v1/users/*").matches(url))
        #expect(StubPattern("/v1/users/*/photos").matches(url))
        #expect(StubPattern("*/photos").matches(url))
        #expect(!StubPattern("/v1/users/*/albums").matches(url))
        #expect(!StubPattern("https://other.test/*").matches(url))
        #expect(!StubPattern("http://api.test/*").matches(url))
        #expect(StubPattern("/v1/*?size=*").matches(url))
        #expect(!StubPattern("/v1/*?size=small").matches(url))
        #expect(!StubPattern("/v1/users/42?*").matches(URL(string: "https://api.test/v1/users/42")!))
        #expect(StubPattern("https://api.test/").matches(URL(string: "https://api.test/")!))
        #expect(StubPattern.glob(Array("a*b*c".utf8), Array("aXbYbZc".utf8)))
        #expect(!StubPattern.glob(Array("a*b*c".utf8), Array("aXbYbZ".utf8)))
    }
}

/// The one header-field rule holds on a stubbed manager too: a request field whose name is not a
/// token, or whose value holds a control character, fails with `.requestSerializationFailed` and
/// never reaches a stub, as it would never reach a server.
@Suite("Stubs: the header-field rule")
struct StubHeaderFieldRuleTests {
    @Test(arguments: [("X-Test", "a\r\nX-Injected: yes"), ("X-Test", "a\u{0B}b"), ("X Test", "v")])
    func aBadFieldNeverReachesAStub(name: String, value: String) async throws {
        let stubs = HTTPStubs()
        stubs.on(.get, "https://api.test/v1") { _ in .text("ok") }
        let manager = SessionManager(stubs: stubs)
        var request = URLRequest(url: URL(string: "https://api.test/v1")!)
        request.allHTTPHeaderFields = [name: value]
        let error = await expectNetworkingError { _ = try await manager.data(for: request) }
        #expect(error?.kind == .requestSerializationFailed)
        #expect(stubs.recordedRequests.isEmpty)
        let (body, _) = try await manager.data(from: URL(string: "https://api.test/v1")!)
        #expect(body == Data("ok".utf8))
        await manager.invalidateAndCancel()
    }
}
