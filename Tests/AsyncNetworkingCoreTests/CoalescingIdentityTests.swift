@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// Rule: two calls share a transfer only when the request that would go on the wire is the same
/// for both — after the configuration's headers, the cookie jar, credentials, the proxy and the
/// security policy are applied — and when what happens to the response (cookies stored or not) is
/// the same. Each ingredient is varied while the first call is held in flight at `/gated-bytes`
/// (so "joined" is an observed state), on both front doors and the run's transport.
@Suite("Request coalescing: the request on the wire decides")
struct CoalescingIdentityTests {
    static var coalescing: TransferOptions { CoalescingTests.coalescing }
    static let cookieURL = "/gated-bytes"

    /// A manager with a cookie jar (and `headers` as the configuration's additional headers) and
    /// a loopback server; both stopped afterwards.
    static func withJarManager(
        headers: [String: String] = [:],
        _ body: @escaping @Sendable (LoopbackServer, SessionManager, CookieJar) async throws -> Void
    ) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let jar = CookieJar()
        let configuration = SessionManager.defaultConfiguration()
        if !headers.isEmpty { configuration.httpAdditionalHeaders = headers }
        let manager = SessionManager(configuration: configuration, cookieJar: jar)
        do {
            try await withDeadline { try await body(server, manager, jar) }
            await manager.invalidateAndCancel()
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
    }

    static func gated(_ server: LoopbackServer, _ gate: String, handlesCookies: Bool = true) -> URLRequest {
        var request = CoalescingTests.gatedRequest(server, gate: gate)
        request.httpShouldHandleCookies = handlesCookies
        return request
    }

    static func gatedRequests(_ server: LoopbackServer) -> [RecordedRequest] {
        server.requests.filter { $0.path == "/gated-bytes" }
    }

    /// Starts `first`, waits until it is held at the server, runs `change`, starts `second`, then
    /// opens the gate; checks that the second joined the first (`expectShared`) or made a request
    /// of its own, and that both got the whole body.
    static func race(
        _ server: LoopbackServer, gate: String,
        first: @escaping @Sendable () async throws -> Int,
        change: @Sendable () async throws -> Void = {},
        second: @escaping @Sendable () async throws -> Int,
        expectShared: Bool, waiting: @escaping @Sendable () -> Int
    ) async throws {
        let before = gatedRequests(server).count
        let one = Task { try await first() }
        #expect(await eventually { gatedRequests(server).count == before + 1 && waiting() == 1 })
        try await change()
        let two = Task { try await second() }
        if expectShared {
            #expect(await eventually { waiting() == 2 }, "the second call joined the first")
        } else {
            #expect(await eventually { gatedRequests(server).count == before + 2 }, "the second call made a request of its own")
        }
        server.openGate(gate)
        #expect(try await one.value == CoalescingTests.size)
        #expect(try await two.value == CoalescingTests.size)
        #expect(gatedRequests(server).count == before + (expectShared ? 1 : 2))
    }

    static func managerCall(_ manager: SessionManager, _ request: URLRequest) -> @Sendable () async throws -> Int {
        { try await manager.data(for: request, options: coalescing).0.count }
    }

    static func clientCall(_ manager: SessionManager, _ request: URLRequest) -> @Sendable () async throws -> Int {
        {
            var client = HTTPClient(manager: manager)
            client.transferOptions.coalescesIdenticalRequests = true
            return try await client.send(request, serializer: DataResponseSerializer()).value.count
        }
    }

    enum Door: String, CaseIterable, Sendable { case manager, client }

    static func call(_ door: Door, _ manager: SessionManager, _ request: URLRequest) -> @Sendable () async throws -> Int {
        switch door {
        case .manager: managerCall(manager, request)
        case .client: clientCall(manager, request)
        }
    }

    static func waiting(_ door: Door, _ manager: SessionManager) -> @Sendable () -> Int {
        switch door {
        case .manager: { manager.coalescing.data.waiting }
        case .client: { manager.coalescing.exchange.waiting }
        }
    }

    /// ``race(_:gate:first:change:second:expectShared:waiting:)`` through `door`, on a fresh gate,
    /// with requests made for that gate.
    static func race(
        _ door: Door, _ server: LoopbackServer, _ manager: SessionManager,
        first: (String) -> URLRequest, change: @Sendable () async throws -> Void = {},
        second: (String) -> URLRequest, expectShared: Bool
    ) async throws {
        let gate = UUID().uuidString
        try await race(
            server, gate: gate, first: call(door, manager, first(gate)), change: change,
            second: call(door, manager, second(gate)), expectShared: expectShared, waiting: waiting(door, manager)
        )
    }

    /// The jar holds a session cookie: the caller that opted out of cookies does not get the
    /// logged-in response, nor the other the anonymous one.
    @Test(arguments: Door.allCases)
    func cookiesOnAndOffNeverShare(_ door: Door) async throws {
        try await Self.withJarManager { server, manager, jar in
            jar.setCookies(fromSetCookieValues: ["session=logged-in"], for: server.url("/"))
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) },
                second: { Self.gated(server, $0, handlesCookies: false) }, expectShared: false
            )
            #expect(Self.gatedRequests(server).map { $0.header("Cookie") ?? "-" }.sorted() == ["-", "session=logged-in"])
        }
    }

    /// The jar is empty, so both requests are the same on the wire, but only one stores its
    /// response's cookies: they do not share either.
    @Test(arguments: Door.allCases)
    func storingCookiesOrNotNeverShares(_ door: Door) async throws {
        try await Self.withJarManager { server, manager, _ in
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0, handlesCookies: false) },
                second: { Self.gated(server, $0) }, expectShared: false
            )
        }
    }

    /// The jar changed while the first call was in flight: the second call's request carries
    /// other cookies, so it is sent on its own.
    @Test(arguments: Door.allCases)
    func aChangedJarMakesANewRequest(_ door: Door) async throws {
        try await Self.withJarManager { server, manager, jar in
            jar.setCookies(fromSetCookieValues: ["session=one"], for: server.url("/"))
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) },
                change: { jar.setCookies(fromSetCookieValues: ["session=two"], for: server.url("/")) },
                second: { Self.gated(server, $0) }, expectShared: false
            )
            #expect(Self.gatedRequests(server).map { $0.header("Cookie") ?? "-" }.sorted() == ["session=one", "session=two"])
        }
    }

    /// The same jar state and the same choices: shared (the control for the tests above).
    @Test(arguments: Door.allCases)
    func theSameCookiesShare(_ door: Door) async throws {
        try await Self.withJarManager { server, manager, jar in
            jar.setCookies(fromSetCookieValues: ["session=same"], for: server.url("/"))
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) },
                second: { Self.gated(server, $0) }, expectShared: true
            )
            #expect(Self.gatedRequests(server).first?.header("Cookie") == "session=same")
        }
    }

    /// A configuration header the caller spells out itself gives the same request on the wire as
    /// one the configuration adds: shared. Another value: not.
    @Test(arguments: Door.allCases)
    func configurationHeadersAreAppliedBeforeComparing(_ door: Door) async throws {
        try await Self.withJarManager(headers: ["X-Tenant": "blue"]) { server, manager, _ in
            func tenant(_ value: String, _ gate: String) -> URLRequest {
                var request = Self.gated(server, gate)
                request.setValue(value, forHTTPHeaderField: "X-Tenant")
                return request
            }
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) }, second: { tenant("blue", $0) }, expectShared: true
            )
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) }, second: { tenant("red", $0) }, expectShared: false
            )
            #expect(Self.gatedRequests(server).compactMap { $0.header("X-Tenant") }.sorted() == ["blue", "blue", "red"])
        }
    }

    /// A credential stored for the host after the first call started would answer a 401 the first
    /// call's transfer would not: the second call does not join it.
    @Test(arguments: Door.allCases)
    func aCredentialStoredMeanwhileMakesANewRequest(_ door: Door) async throws {
        try await Self.withJarManager { server, manager, _ in
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) },
                change: { await manager.setCredential(URLCredential(user: "u", password: "p", persistence: .none), forHost: "127.0.0.1") },
                second: { Self.gated(server, $0) }, expectShared: false
            )
        }
    }

    /// Per-request credentials are part of the request: other user info, another request.
    @Test(arguments: Door.allCases)
    func otherUserInfoMakesANewRequest(_ door: Door) async throws {
        try await Self.withJarManager { server, manager, _ in
            func request(_ user: String, _ gate: String) -> URLRequest {
                URLRequest(url: URL(string: "http://\(user):pw@127.0.0.1:\(server.port)/gated-bytes?bytes=\(CoalescingTests.size)&gate=\(gate)")!)
            }
            try await Self.race(
                door, server, manager, first: { request("ada", $0) }, second: { request("bob", $0) }, expectShared: false
            )
        }
    }

    /// Another security policy for the host since the first call started: another transfer.
    @Test(arguments: Door.allCases)
    func aChangedSecurityPolicyMakesANewRequest(_ door: Door) async throws {
        try await Self.withJarManager { server, manager, _ in
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) },
                change: { await manager.setSecurityPolicy(.disabled, forHost: "127.0.0.1") },
                second: { Self.gated(server, $0) }, expectShared: false
            )
        }
    }

    /// Another route since the first call started (a proxy now): another transfer, through the proxy.
    @Test(.enabled(if: TestPKI.isAvailable && defaultTransportIsCurl, "needs python3 (the proxy test server) and the curl transport"),
          arguments: Door.allCases)
    func aChangedProxyMakesANewRequest(_ door: Door) async throws {
        let proxy = try await ProxyTestServer.started()
        defer { proxy.stop() }
        try await Self.withJarManager { server, manager, _ in
            try await Self.race(
                door, server, manager, first: { Self.gated(server, $0) },
                change: { try await manager.setProxy(.through(.http(host: "127.0.0.1", port: proxy.port))) },
                second: { Self.gated(server, $0) }, expectShared: false
            )
            #expect(proxy.log.contains { $0.contains("/gated-bytes") }, "the second went through the proxy: \(proxy.log)")
        }
    }

    /// ``HTTPClient/cache`` on for one client, off for the other: what each sends differs
    /// (the cache asks the network with its own cache policy), so they never share; each gets the
    /// whole body.
    @Test func aCachingClientAndAPlainOneDoNotShare() async throws {
        try await Self.withJarManager { server, manager, _ in
            let gate = UUID().uuidString
            let request = Self.gated(server, gate)
            let cached: @Sendable () async throws -> Int = {
                var client = HTTPClient(manager: manager)
                client.transferOptions.coalescesIdenticalRequests = true
                client.cache = HTTPCache()
                return try await client.send(request, serializer: DataResponseSerializer()).value.count
            }
            try await Self.race(
                server, gate: gate, first: cached, second: Self.clientCall(manager, request),
                expectShared: false, waiting: Self.waiting(.client, manager)
            )
        }
    }
}
