@testable import AsyncNetworkingTestSupport

/// Rule: a `407` is the proxy's challenge. Its protection space is the proxy (host, port,
/// `isProxy()`, the `Proxy-Authenticate` realm); only a proxy credential answers it, as
/// `Proxy-Authorization` to that proxy — the challenge hook's answer to that space, scoped to the
/// proxy, or the ``ProxyServer``'s own credential (which curl sends up front). An origin credential
/// (``SessionManager/setCredential(_:forHost:)``, URL user info, ``HTTPClient/withCredential(_:)``)
/// never answers it; without a proxy credential the `407` is delivered as such (absolute form) or
/// fails as ``NetworkingError/Kind/proxyFailed`` (a `CONNECT` tunnel). Checked against proxies
/// that record what they receive: ``ProxyTestServer`` (which logs `Proxy-Authorization` as `auth=`
/// and `Authorization` as `authorization=`) and Debian's tinyproxy.
@Suite(.enabled(if: TestPKI.isAvailable, "needs python3 (the proxy test server) and openssl"))
struct ProxyChallengeTests {
    static let proxyCredential = ProxyTests.credential
    static let siteCredential = URLCredential(user: "site-user", password: "site-secret", persistence: .none)
    static let siteBasic = "Basic " + Data("site-user:site-secret".utf8).base64EncodedString()

    /// What the hook was asked.
    final class Questions: Sendable {
        let list = SanitizedMutex<[(host: String, port: Int, isProxy: Bool, proxyType: String?, realm: String?, method: String, failures: Int)]>([])
        func record(_ context: ChallengeContext) {
            let space = context.challenge.protectionSpace
            list.withLock {
                $0.append((space.host, space.port, space.isProxy(), space.proxyType, space.realm, space.authenticationMethod, context.previousFailureCount))
            }
        }
        var all: [(host: String, port: Int, isProxy: Bool, proxyType: String?, realm: String?, method: String, failures: Int)] { list.withLock { $0 } }
    }

    /// A hook that answers the proxy's space with `proxy` and the origin's with the site credential.
    static func hook(_ questions: Questions, proxy: ProxyCredential?) -> SessionHooks {
        SessionHooks(challenge: { context in
            questions.record(context)
            guard context.previousFailureCount == 0 else { return .refuse }
            if context.challenge.protectionSpace.isProxy() {
                return proxy.map { .useCredential(URLCredential(user: $0.user, password: $0.password, persistence: .none)) } ?? .refuse
            }
            return .useCredential(Self.siteCredential)
        })
    }

    /// The proxy's log lines for requests whose target contains `path`.
    static func lines(_ proxy: ProxyTestServer, _ path: String) -> [String] {
        proxy.log.filter { $0.contains(path) && !$0.hasPrefix("PORT") }
    }

    @Test func theStoredOriginCredentialNeverAnswersA407() async throws {
        try await ProxyTests.withProxy({ .through(ProxyTests.http($0, credential: nil)) }) { server, proxy, manager in
            await manager.setCredential(Self.siteCredential, forHost: "127.0.0.1")
            let (_, response) = try await manager.data(from: server.url("/bytes/5"))
            #expect(response.statusCode == 407, "a 407 is delivered as such")
            let seen = Self.lines(proxy, "/bytes/5")
            #expect(seen.count == 1, "no retry: \(seen)")
            #expect(seen.allSatisfy { $0.contains("auth=-") && $0.contains("authorization=-") }, "\(seen)")
            #expect(server.requests.isEmpty)
        }
    }

    /// URL user info goes to the origin as it always does (the proxy forwards it); the proxy's 407
    /// is not retried with it, nor is it ever sent as `Proxy-Authorization`.
    @Test func urlUserInfoNeverAnswersA407() async throws {
        try await ProxyTests.withProxy({ .through(ProxyTests.http($0, credential: nil)) }) { server, proxy, manager in
            let url = URL(string: "http://site-user:site-secret@127.0.0.1:\(server.port)/bytes/6")!
            let (_, response) = try await manager.data(from: url)
            #expect(response.statusCode == 407)
            let seen = Self.lines(proxy, "/bytes/6")
            #expect(seen.count == 1, "no retry: \(seen)")
            #expect(seen.allSatisfy { $0.contains("auth=-") }, "never as Proxy-Authorization: \(seen)")
        }
    }

    @Test func theClientsCredentialNeverAnswersA407() async throws {
        try await ProxyTests.withProxy({ .through(ProxyTests.http($0, credential: nil)) }) { server, proxy, manager in
            await manager.setCredential(Self.siteCredential, forHost: "127.0.0.1")
            let client = HTTPClient(manager: manager, baseURL: server.baseURL).withCredential(Self.siteCredential)
            let error = await expectNetworkingError { try await client.get("/bytes/7", serializer: DataResponseSerializer()) }
            #expect(error?.response?.statusCode == 407, "\(String(describing: error))")
            let seen = Self.lines(proxy, "/bytes/7")
            #expect(!seen.isEmpty)
            #expect(seen.allSatisfy { $0.contains("auth=-") && $0.contains("authorization=-") }, "\(seen)")
        }
    }

    /// The hook is asked about the proxy (its host, port, realm, `isProxy()`), and its answer goes
    /// to the proxy as `Proxy-Authorization`, never to the origin.
    @Test func theHookIsAskedAboutTheProxyAndItsAnswerGoesToTheProxy() async throws {
        try await ProxyTests.withProxy({ .through(ProxyTests.http($0, credential: nil)) }) { server, proxy, manager in
            let questions = Questions()
            await manager.setCredential(Self.siteCredential, forHost: "127.0.0.1")
            await manager.setHooks(Self.hook(questions, proxy: Self.proxyCredential))
            let (body, response) = try await manager.data(from: server.url("/bytes/8"))
            #expect(response.statusCode == 200)
            #expect(body.count == 8)
            let asked = questions.all
            #expect(asked.count == 1, "\(asked)")
            #expect(asked.first?.isProxy == true)
            #expect(asked.first?.host == "127.0.0.1")
            #expect(asked.first?.port == proxy.port, "the proxy's port, not the origin's")
            #expect(asked.first?.proxyType == NSURLProtectionSpaceHTTPProxy)
            #expect(asked.first?.realm == "test")
            #expect(asked.first?.method == NSURLAuthenticationMethodHTTPBasic)
            let seen = Self.lines(proxy, "/bytes/8")
            #expect(seen.count == 2, "\(seen)")
            #expect(seen.last?.contains(ProxyTests.expectedAuth) == true, "\(seen)")
            #expect(seen.allSatisfy { $0.contains("authorization=-") }, "no origin credential: \(seen)")
            let origin = try #require(server.requests.last)
            #expect(origin.header("Proxy-Authorization") == nil)
            #expect(origin.header("Authorization") == nil)
        }
    }

    /// A hook that refuses the proxy: the 407 is the result.
    @Test func aHookThatRefusesTheProxyLeavesThe407() async throws {
        try await ProxyTests.withProxy({ .through(ProxyTests.http($0, credential: nil)) }) { server, proxy, manager in
            let questions = Questions()
            await manager.setHooks(Self.hook(questions, proxy: nil))
            let (_, response) = try await manager.data(from: server.url("/bytes/9"))
            #expect(response.statusCode == 407)
            #expect(questions.all.map(\.isProxy) == [true])
            #expect(Self.lines(proxy, "/bytes/9").count == 1)
        }
    }

    /// The proxy credential the hook gave stays with the proxy over redirects: the next hop through
    /// the same proxy carries it (the hook is not asked again), a hop that goes direct does not.
    @Test func theHooksProxyCredentialFollowsTheProxyNotTheOrigin() async throws {
        try await ProxyTests.withProxy({ .through(ProxyTests.http($0, credential: nil), exclusions: ["localhost"]) }) { server, proxy, manager in
            let questions = Questions()
            await manager.setHooks(Self.hook(questions, proxy: Self.proxyCredential))
            let other = try LoopbackServer()
            defer { other.stop() }
            let through = "http://127.0.0.1:\(other.port)/bytes/10"
            let (_, first) = try await manager.data(from: server.url("/redirect-to?url=\(through)"))
            #expect(first.statusCode == 200)
            let hop = proxy.log.filter { $0.hasPrefix("GET \(through) ") }
            #expect(hop.count == 1, "\(proxy.log)")
            #expect(hop.allSatisfy { $0.contains(ProxyTests.expectedAuth) }, "\(proxy.log)")
            #expect(questions.all.count == 1, "asked once for the proxy: \(questions.all)")
            let direct = "http://localhost:\(other.port)/bytes/11"
            let (_, second) = try await manager.data(from: server.url("/redirect-to?url=\(direct)"))
            #expect(second.statusCode == 200)
            #expect(!proxy.log.contains { $0.hasPrefix("GET \(direct) ") }, "localhost is excluded: \(proxy.log)")
            let directHop = try #require(other.requests.last { $0.path == "/bytes/11" })
            #expect(directHop.header("Proxy-Authorization") == nil)
            #expect(other.requests.allSatisfy { $0.header("Proxy-Authorization") == nil })
        }
    }

    /// A `CONNECT` refused with 407 is a proxy failure: no origin credential is sent to the proxy,
    /// the hook is not asked (libcurl hides the tunnel's response), nothing reaches the origin.
    @Test(arguments: [false, true])
    func aTunnelsConnect407IsAProxyFailure(withHook: Bool) async throws {
        try await ProxyTests.withProxy({ .through(ProxyTests.http($0, credential: nil, tunnels: true)) }) { server, proxy, manager in
            let questions = Questions()
            await manager.setCredential(Self.siteCredential, forHost: "127.0.0.1")
            if withHook { await manager.setHooks(Self.hook(questions, proxy: nil)) }
            let error = await expectNetworkingError { try await manager.data(from: server.url("/bytes/12")) }
            #expect(error?.kind == .proxyFailed)
            #expect(questions.all.isEmpty)
            let connects = proxy.log.filter { $0.hasPrefix("CONNECT ") }
            #expect(connects.count == 1, "\(connects)")
            #expect(connects.allSatisfy { $0.contains("auth=-") && $0.contains("authorization=-") })
            #expect(server.requests.isEmpty)
        }
    }

    @Test(.enabled(if: TinyproxyServer.executable != nil, "needs Debian's tinyproxy (apt-get install tinyproxy)"))
    func tinyproxysChallengeIsTheProxysOwn() async throws {
        let tinyproxy = try await TinyproxyServer.started(requiring: Self.proxyCredential)
        defer { tinyproxy.stop() }
        try await withServerAndManager { server, manager in
            let configuration = ProxyConfiguration.through(ProxyTests.http(tinyproxy.port, credential: nil))
            guard manager.transport == .curl else {
                let error = await expectNetworkingError { try await manager.setProxy(configuration) }
                #expect(error?.kind == .proxyUnsupported)
                return
            }
            try await manager.setProxy(configuration)
            await manager.setCredential(Self.siteCredential, forHost: "127.0.0.1")
            let (_, refused) = try await manager.data(from: server.url("/bytes/13"))
            #expect(refused.statusCode == 407)
            #expect(tinyproxy.requests.filter { $0.contains("/bytes/13") }.count == 1, "\(tinyproxy.requests)")
            #expect(server.requests.isEmpty)
            let questions = Questions()
            await manager.setHooks(Self.hook(questions, proxy: Self.proxyCredential))
            let (_, accepted) = try await manager.data(from: server.url("/bytes/14"))
            #expect(accepted.statusCode == 200)
            #expect(questions.all.map(\.isProxy) == [true])
            #expect(questions.all.first?.port == tinyproxy.port)
            let origin = try #require(server.requests.last)
            #expect(origin.header("Proxy-Authorization") == nil)
            #expect(origin.header("Authorization") == nil)
        }
    }
}

/// The same rule with ``ProxyConfiguration/environment`` (the only configuration URLSession takes):
/// a child run of this test bundle with `http_proxy` naming a proxy that requires a credential.
/// Its proxy log shows what the proxy received from both transports.
@Suite(.enabled(if: TestPKI.isAvailable, "needs python3 (the proxy test server)"))
struct ProxyChallengeEnvironmentTests {
    @Test func anEnvironmentProxysChallengeIsTheProxysOwn() async throws {
        let proxy = try await ProxyTestServer.started(requiring: ProxyTests.credential)
        defer { proxy.stop() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let executable = ProcessInfo.processInfo.arguments[0]
        let arguments = [
            "http_proxy=http://127.0.0.1:\(proxy.port)", "AN_PROXY_407_CHILD_URL=\(server.url("/bytes/15"))",
            "AN_PROXY_407_CHILD_PORT=\(proxy.port)",
            executable, "--testing-library", "swift-testing", "--filter", "ProxyChallengeEnvironmentChild",
        ]
        let (status, output) = try await offThePool { try Subprocess.run("/usr/bin/env", arguments) }
        #expect(status == 0, "the child run failed:\n\(output.suffix(3000))")
        #expect(output.contains("ProxyChallengeEnvironmentChild"), "the child ran:\n\(output.suffix(2000))")
        let seen = proxy.log.filter { $0.contains("/bytes/15") }
        #expect(!seen.isEmpty, "\(proxy.log)")
        #expect(seen.allSatisfy { $0.contains("authorization=-") }, "no origin credential reached the proxy: \(seen)")
        #expect(seen.allSatisfy { $0.contains("auth=-") || $0.contains(ProxyTests.expectedAuth) }, "\(seen)")
    }
}

/// Runs only as the child of ``ProxyChallengeEnvironmentTests``.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AN_PROXY_407_CHILD_URL"] != nil, "runs only as a child of ProxyChallengeEnvironmentTests"))
struct ProxyChallengeEnvironmentChild {
    @Test func theStoredCredentialNeverAnswersAndTheHookIsAskedAboutTheProxy() async throws {
        let environment = ProcessInfo.processInfo.environment
        let url = try #require(environment["AN_PROXY_407_CHILD_URL"].flatMap(URL.init(string:)))
        let proxyPort = try #require(environment["AN_PROXY_407_CHILD_PORT"].flatMap(Int.init))
        let manager = SessionManager()
        try await withDeadline {
            await manager.setCredential(ProxyChallengeTests.siteCredential, forHost: "127.0.0.1")
            let (_, refused) = try await manager.data(from: url)
            #expect(refused.statusCode == 407)
            let questions = ProxyChallengeTests.Questions()
            await manager.setHooks(ProxyChallengeTests.hook(questions, proxy: ProxyChallengeTests.proxyCredential))
            let (_, answered) = try await manager.data(from: url)
            let asked = questions.all
            if manager.transport == .curl {
                // The environment's proxy for the URL is the 407's protection space.
                #expect(answered.statusCode == 200)
                #expect(asked.count == 1 && asked.allSatisfy { $0.isProxy && $0.port == proxyPort }, "\(asked)")
            } else {
                // FoundationNetworking raises no challenge for a 407 and takes proxy credentials
                // only from the environment: the 407 is the response, the hook is not asked.
                #expect(answered.statusCode == 407)
                #expect(asked.isEmpty, "\(asked)")
            }
        }
        await manager.invalidateAndCancel()
    }
}
