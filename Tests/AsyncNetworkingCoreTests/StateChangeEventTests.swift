import Synchronization
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport
import AsyncNetworkingTesting

/// Rule: the session events `transferResumed` / `transferSuspended` (and the activity stream's
/// `.started` / `.suspended`) follow the transfer's state changes only, as AFNetworking's
/// notifications do: one "resumed" when a transfer starts, one more per resume after a pause, one
/// "suspended" per pause or hold — never one per attempt. Redirects the Session layer follows
/// (curl, stubs), a credential answering a 401, and a 307 re-sending a body are attempts inside a
/// running transfer; each is checked on every transport.
@Suite struct StateChangeEventTests {
    enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case curl, urlSession, stubs
        var testDescription: String { rawValue }
    }

    enum Case: String, CaseIterable, Sendable, CustomTestStringConvertible {
        /// Two 302s, then the 200.
        case redirects
        /// A 401 Basic answered with the manager's credential for the host.
        case credentialRetry
        /// A POST with a body, re-sent after a 307.
        case resendAfter307
        var testDescription: String { rawValue }
    }

    /// The names of the state events each stream posted about one transfer.
    struct Seen: Sendable {
        var session: [String]
        var activity: [String]
    }

    @Test(arguments: Engine.allCases, Case.allCases)
    func attemptsInsideARunningTransferPostNoStateEvent(_ engine: Engine, _ scenario: Case) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let stubs = HTTPStubs()
        let manager: SessionManager
        let base: URL
        switch engine {
        case .curl, .urlSession:
            manager = SessionManager(transport: engine == .curl ? .curl : .urlSession)
            base = server.baseURL
        case .stubs:
            manager = SessionManager(stubs: stubs)
            base = URL(string: "https://api.test")!
            Self.stubRoutes(stubs)
        }
        defer { Task { await manager.invalidateAndCancel() } }
        await manager.setCredential(URLCredential(user: "ada", password: "lovelace", persistence: .none), forHost: base.host!)
        var request: URLRequest
        switch scenario {
        case .redirects:
            request = URLRequest(url: base.appendingPathComponent("redirect/2"))
        case .credentialRetry:
            request = URLRequest(url: base.appendingPathComponent("auth-echo/ada/lovelace"))
        case .resendAfter307:
            request = URLRequest(url: URL(string: base.absoluteString + "/redirect/1?status=307&to=/echo")!)
            request.httpMethod = "POST"
            request.httpBody = Data(repeating: 7, count: 1000)
        }
        let sending = request
        let seen = try await withDeadline { try await Self.stateEvents(of: sending, on: manager) }
        withExtendedLifetime(stubs) {} // a manager holds its registry weakly
        #expect(seen.session == ["resumed"], "\(scenario) on \(engine): \(seen.session)")
        #expect(seen.activity == ["started"], "\(scenario) on \(engine): \(seen.activity)")
    }

    /// Pausing and resuming in place (curl) posts exactly one suspended and one more resumed.
    @Test func aPauseAndAResumeInPlacePostOneEventEach() async throws {
        try await withServerAndManager(transport: .curl) { server, manager in
            let events = await manager.sessionEvents()
            let gate = UUID().uuidString
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/gated-bytes?bytes=200000&after=1000&gate=\(gate)")))
            var iterator = handle.events.makeAsyncIterator()
            while let event = try await iterator.next() { if case .response = event { break } }
            try await handle.suspend()
            try await handle.suspend()
            try await handle.resume()
            try await handle.resume()
            server.openGate(gate)
            while try await iterator.next() != nil {}
            await manager.invalidateAndCancel()
            var names: [String] = []
            for await event in events {
                switch event {
                case .transferResumed(let id, _) where id == handle.id: names.append("resumed")
                case .transferSuspended(let id) where id == handle.id: names.append("suspended")
                default: break
                }
            }
            #expect(names == ["resumed", "suspended", "resumed"])
        }
    }

    /// Runs `request` to its end with `manager.data(for:)` and returns the state events posted
    /// about its transfer.
    static func stateEvents(of request: URLRequest, on manager: SessionManager) async throws -> Seen {
        let events = await manager.sessionEvents()
        let activity = await manager.transferActivity()
        let (_, response) = try await manager.data(for: request)
        #expect(response.statusCode == 200)
        var session: [String] = []
        for await event in events {
            switch event {
            case .transferResumed: session.append("resumed")
            case .transferSuspended: session.append("suspended")
            case .transferCompleted: break
            case .invalidated: break
            }
            if case .transferCompleted = event { break }
        }
        var names: [String] = []
        for await event in activity {
            switch event {
            case .started: names.append("started")
            case .suspended: names.append("suspended")
            default: break
            }
            if case .completed = event { break }
        }
        return Seen(session: session, activity: names)
    }

    /// The loopback routes the scenarios use, as stubs.
    static func stubRoutes(_ stubs: HTTPStubs) {
        stubs.on(.get, "https://api.test/redirect/2", respond: .status(302, headers: ["Location": "/redirect/1"]))
        stubs.on(.get, "https://api.test/redirect/1", respond: .status(302, headers: ["Location": "/redirect/0"]))
        stubs.on(.get, "https://api.test/redirect/0", respond: .text("redirected"))
        stubs.on(.post, "https://api.test/redirect/1?status=307&to=/echo", respond: .status(307, headers: ["Location": "/echo"]))
        stubs.on(.post, "https://api.test/echo") { request in .text("\(request.body?.count ?? 0)") }
        let expected = "Basic " + Data("ada:lovelace".utf8).base64EncodedString()
        stubs.on(.get, "https://api.test/auth-echo/ada/lovelace") { request in
            request.header("Authorization") == expected
                ? .text("ok")
                : .status(401, headers: ["WWW-Authenticate": "Basic realm=\"test\""])
        }
    }
}
