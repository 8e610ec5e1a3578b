@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// No credential from any source — the request's headers, the
/// configuration's headers, an answered challenge, an adapter — is sent to an origin (scheme,
/// host, port) other than the one it was given for; on both transports. Two origins on one server:
/// `127.0.0.1:PORT` and `localhost:PORT` (another host), or two servers (another port).
@Suite struct CredentialScopeTests {
    static let transports: [SessionManager.Transport] = [.curl, .urlSession]
    static let statuses = [301, 302, 303, 307, 308]
    static let secrets = [
        "Authorization": "Bearer SECRET-TOKEN",
        "Cookie": "session=SECRET-COOKIE",
        "Proxy-Authorization": "Basic U0VDUkVU",
    ]
    static let basic = "Basic " + Data("ada:lovelace".utf8).base64EncodedString()

    /// Where the credential-bearing headers come from.
    enum Source: String, CaseIterable, Sendable { case request, configuration }

    /// A server and a manager on `transport`, both ended afterwards.
    static func withManager(
        _ transport: SessionManager.Transport, headers: [String: String] = [:],
        _ body: @escaping @Sendable (LoopbackServer, SessionManager) async throws -> Void
    ) async throws {
        try await withServerAndManager(transport: transport, configure: { configuration in
            if !headers.isEmpty { configuration.httpAdditionalHeaders = headers }
        }, body)
    }

    /// `target` percent-encoded for a query value (so the query holds no literal `://`).
    static func encoded(_ target: String) -> String {
        target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }

    /// `http://localhost:PORT/…`: the same server under another origin.
    static func otherOrigin(_ server: LoopbackServer, _ path: String) -> String {
        "http://localhost:\(server.port)\(path)"
    }

    /// The header fields (name lowercased → value) of the requests the server saw at `path`.
    static func headers(at path: String, _ server: LoopbackServer) -> [[String: String]] {
        server.requests.filter { $0.path == path }.map { request in
            Dictionary(request.headers.map { ($0.0.lowercased(), $0.1) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// Sends `request` (as an upload of `body` when given).
    static func send(_ request: URLRequest, body: Data?, on manager: SessionManager) async throws -> HTTPURLResponse {
        if let body { return try await manager.upload(for: request, from: body).1 }
        return try await manager.data(for: request).1
    }

    // MARK: Item 1 — an answered challenge

    /// A 401 Basic from 127.0.0.1 answered with the per-host credential, then a redirect to
    /// localhost: the other origin never sees `Authorization` (every redirect status).
    @Test(arguments: transports, statuses)
    func anAnsweredCredentialNeverFollowsARedirectToAnotherOrigin(_ transport: SessionManager.Transport, _ status: Int) async throws {
        try await Self.withManager(transport) { server, manager in
            await manager.setCredential(URLCredential(user: "ada", password: "lovelace", persistence: .none), forHost: "127.0.0.1")
            let target = Self.encoded(Self.otherOrigin(server, "/echo"))
            let body: Data? = status >= 307 ? Data(repeating: 3, count: 4_000) : nil
            var request = URLRequest(url: server.url("/auth-redirect/ada/lovelace?url=\(target)&status=\(status)"))
            request.httpMethod = body == nil ? "GET" : "POST"
            let response = try await Self.send(request, body: body, on: manager)
            #expect(response.statusCode == 200)
            // The credential did answer the challenge at its own origin…
            #expect(Self.headers(at: "/auth-redirect/ada/lovelace", server).contains { $0["authorization"] == Self.basic })
            // …and went nowhere else.
            let seen = Self.headers(at: "/echo", server)
            #expect(seen.count == 1)
            #expect(seen.allSatisfy { $0["authorization"] == nil }, "the answered credential followed the \(status) to another origin")
        }
    }

    /// The same with the credential given by a challenge hook, and the other origin on another port.
    @Test(arguments: transports)
    func aHooksCredentialNeverFollowsARedirectToAnotherPort(_ transport: SessionManager.Transport) async throws {
        let other = try LoopbackServer()
        defer { other.stop() }
        try await Self.withManager(transport) { server, manager in
            await manager.setHooks(SessionHooks(challenge: { _ in
                .useCredential(URLCredential(user: "ada", password: "lovelace", persistence: .none))
            }))
            let target = Self.encoded(other.url("/echo").absoluteString)
            let (_, response) = try await manager.data(from: server.url("/auth-redirect/ada/lovelace?url=\(target)"))
            #expect(response.statusCode == 200)
            #expect(Self.headers(at: "/auth-redirect/ada/lovelace", server).contains { $0["authorization"] == Self.basic })
            let seen = Self.headers(at: "/echo", other)
            #expect(seen.count == 1)
            #expect(seen.allSatisfy { $0["authorization"] == nil })
        }
    }

    /// An answered credential is scoped to its protection space: a redirect that comes back to
    /// that origin may carry it again (curl re-sends it per attempt; see ``ScopedCredential``),
    /// and the origin in between never sees it.
    @Test(arguments: transports)
    func anAnsweredCredentialComesBackOnlyToItsOwnOrigin(_ transport: SessionManager.Transport) async throws {
        try await Self.withManager(transport) { server, manager in
            await manager.setCredential(URLCredential(user: "ada", password: "lovelace", persistence: .none), forHost: "127.0.0.1")
            let back = Self.encoded(server.url("/echo").absoluteString)
            let via = Self.encoded(Self.otherOrigin(server, "/redirect-to?url=\(back)"))
            let (_, response) = try await manager.data(from: server.url("/auth-redirect/ada/lovelace?url=\(via)"))
            #expect(response.statusCode == 200)
            let between = Self.headers(at: "/redirect-to", server)
            #expect(between.count == 1)
            #expect(between.allSatisfy { $0["authorization"] == nil })
            let home = Self.headers(at: "/echo", server)
            #expect(home.count == 1)
            if transport == .curl { #expect(home.first?["authorization"] == Self.basic) }
        }
    }

    // MARK: Item 2 — configuration headers (and the request's own, on both transports)

    /// `Authorization`, `Cookie` and `Proxy-Authorization` from the request or the configuration
    /// never follow a redirect to another host; other headers do.
    @Test(arguments: transports, Source.allCases)
    func credentialHeadersNeverFollowARedirectToAnotherOrigin(_ transport: SessionManager.Transport, _ source: Source) async throws {
        for status in Self.statuses {
            var configured = ["X-Kept": "kept"]
            if source == .configuration { configured.merge(Self.secrets) { $1 } }
            try await Self.withManager(transport, headers: configured) { server, manager in
                let target = Self.encoded(Self.otherOrigin(server, "/echo"))
                var request = URLRequest(url: server.url("/redirect-to?url=\(target)&status=\(status)"))
                if source == .request { for (name, value) in Self.secrets { request.setValue(value, forHTTPHeaderField: name) } }
                let body: Data? = status >= 307 ? Data(repeating: 5, count: 3_000) : nil
                request.httpMethod = body == nil ? "GET" : "POST"
                let response = try await Self.send(request, body: body, on: manager)
                #expect(response.statusCode == 200)
                let first = try #require(Self.headers(at: "/redirect-to", server).first)
                for name in Self.secrets.keys { #expect(first[name.lowercased()] != nil, "\(name) was not sent to its own origin") }
                let seen = try #require(Self.headers(at: "/echo", server).first)
                for name in Self.secrets.keys {
                    #expect(seen[name.lowercased()] == nil, "\(name) from the \(source) followed a \(status) to another origin")
                }
                #expect(seen["x-kept"] == "kept")
            }
        }
    }

    /// The control: on the same origin every header stays, whatever its source.
    @Test(arguments: transports, Source.allCases)
    func credentialHeadersStayOnTheSameOrigin(_ transport: SessionManager.Transport, _ source: Source) async throws {
        for status in [302, 307] {
            try await Self.withManager(transport, headers: source == .configuration ? Self.secrets : [:]) { server, manager in
                var request = URLRequest(url: server.url("/redirect-to?url=%2Fecho&status=\(status)"))
                if source == .request { for (name, value) in Self.secrets { request.setValue(value, forHTTPHeaderField: name) } }
                let body: Data? = status == 307 ? Data(repeating: 6, count: 2_000) : nil
                request.httpMethod = body == nil ? "GET" : "POST"
                let response = try await Self.send(request, body: body, on: manager)
                #expect(response.statusCode == 200)
                let seen = try #require(Self.headers(at: "/echo", server).first)
                for (name, value) in Self.secrets { #expect(seen[name.lowercased()] == value, "\(name) was dropped on the same origin") }
            }
        }
    }

    /// Another port is another origin: configuration headers stay behind there too.
    @Test(arguments: transports)
    func configurationHeadersNeverFollowARedirectToAnotherPort(_ transport: SessionManager.Transport) async throws {
        let other = try LoopbackServer()
        defer { other.stop() }
        try await Self.withManager(transport, headers: Self.secrets) { server, manager in
            let target = Self.encoded(other.url("/echo").absoluteString)
            let (_, response) = try await manager.data(from: server.url("/redirect-to?url=\(target)"))
            #expect(response.statusCode == 200)
            let seen = try #require(Self.headers(at: "/echo", other).first)
            for name in Self.secrets.keys { #expect(seen[name.lowercased()] == nil, "\(name) followed the redirect to another port") }
        }
    }

    /// A second hop on the other origin starts from the request that reached it, never from the
    /// original request: a PUT sent on by a 302 and then re-sent by a 307 carries no credential.
    @Test(arguments: transports)
    func aSecondHopOnTheOtherOriginCarriesNoCredential(_ transport: SessionManager.Transport) async throws {
        try await Self.withManager(transport, headers: ["Cookie": "session=SECRET-COOKIE"]) { server, manager in
            let last = Self.encoded(Self.otherOrigin(server, "/echo"))
            let hop = Self.encoded(Self.otherOrigin(server, "/redirect-to?status=307&url=\(last)"))
            var request = URLRequest(url: server.url("/redirect-to?status=302&url=\(hop)"))
            request.httpMethod = "PUT"
            request.setValue("Bearer SECRET-TOKEN", forHTTPHeaderField: "Authorization")
            let response = try await Self.send(request, body: Data(repeating: 9, count: 2_500), on: manager)
            #expect(response.statusCode == 200)
            let seen = Self.headers(at: "/echo", server)
            #expect(!seen.isEmpty)
            #expect(seen.allSatisfy { $0["authorization"] == nil && $0["cookie"] == nil })
        }
    }

    /// The manager's URLSession no longer carries the credential-bearing configuration headers
    /// (FoundationNetworking would add them to every request it sends, redirects included).
    @Test func theSessionsConfigurationLacksCredentialHeaders() {
        let configuration = SessionManager.defaultConfiguration()
        configuration.httpAdditionalHeaders = Self.secrets.merging(["X-Kept": "kept"]) { $1 }
        let manager = SessionManager(configuration: configuration, transport: .urlSession)
        let given = manager.urlSession?.configuration.httpAdditionalHeaders ?? [:]
        #expect(given.count == 1)
        #expect(given["X-Kept"] as? String == "kept")
        #expect(configuration.httpAdditionalHeaders?.count == 4, "the caller's configuration is not changed")
    }

    /// The pure scope of an answered credential: scheme, host and port of its protection space.
    @Test func aScopedCredentialCoversOnlyItsOrigin() throws {
        let space = URLProtectionSpace(host: "127.0.0.1", port: 8080, protocol: "http", realm: "r", authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let scoped = try #require(ScopedCredential(URLCredential(user: "u", password: "p", persistence: .none), space: space))
        #expect(scoped.covers(URL(string: "http://127.0.0.1:8080/any?x")!))
        #expect(!scoped.covers(URL(string: "http://localhost:8080/")!))
        #expect(!scoped.covers(URL(string: "http://127.0.0.1:8081/")!))
        #expect(!scoped.covers(URL(string: "https://127.0.0.1:8080/")!), "an upgrade to https is another origin")
        var own = URLRequest(url: URL(string: "http://127.0.0.1:8080/x")!)
        own.setValue("Bearer mine", forHTTPHeaderField: "Authorization")
        #expect(scoped.applied(to: own).value(forHTTPHeaderField: "Authorization") == "Bearer mine")
        #expect(scoped.applied(to: URLRequest(url: URL(string: "http://localhost:8080/x")!)).value(forHTTPHeaderField: "Authorization") == nil)
    }
}
