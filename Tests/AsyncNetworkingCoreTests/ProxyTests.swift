@testable import AsyncNetworkingTestSupport

/// A manager's transfers through real proxies on 127.0.0.1 that the tests start
/// (``ProxyTestServer``: absolute-form HTTP, CONNECT, SOCKS5; Debian's tinyproxy where installed).
/// On the run's transport: on URLSession an explicit configuration is refused
/// (``NetworkingError/Kind/proxyUnsupported``) and the test checks that instead.
@Suite(.enabled(if: TestPKI.isAvailable, "needs python3 (the proxy test server) and openssl"))
struct ProxyTests {
    static let credential = ProxyCredential(user: "proxy-user", password: "proxy-secret-9")
    static let expectedAuth = "auth=Basic " + Data("proxy-user:proxy-secret-9".utf8).base64EncodedString()

    /// Starts an origin, a proxy and a manager on the run's transport routed through the proxy;
    /// on URLSession checks that the configuration is refused and runs nothing else.
    static func withProxy(
        requiring credential: ProxyCredential? = Self.credential,
        _ configure: @Sendable (Int) -> ProxyConfiguration,
        _ body: @escaping @Sendable (LoopbackServer, ProxyTestServer, SessionManager) async throws -> Void
    ) async throws {
        let proxy = try await ProxyTestServer.started(requiring: credential)
        defer { proxy.stop() }
        let configuration = configure(proxy.port)
        try await withServerAndManager { server, manager in
            guard manager.transport == .curl else {
                let error = await expectNetworkingError { try await manager.setProxy(configuration) }
                #expect(error?.kind == .proxyUnsupported)
                try await manager.setProxy(.environment) // the one configuration URLSession takes
                return
            }
            try await manager.setProxy(configuration)
            #expect(await manager.proxy == configuration)
            try await body(server, proxy, manager)
        }
    }

    static func http(_ port: Int, credential: ProxyCredential? = Self.credential, tunnels: Bool = false) -> ProxyServer {
        ProxyServer(kind: .http, host: "127.0.0.1", port: port, credential: credential, tunnelsHTTP: tunnels)
    }

    @Test func absoluteFormRequestGoesThroughTheProxyWithItsCredential() async throws {
        try await Self.withProxy({ .through(Self.http($0)) }) { server, proxy, manager in
            let (body, response) = try await manager.fetch(from: server.url("/bytes/100"))
            #expect(response.statusCode == 200)
            #expect(body.count == 100)
            let line = try #require(proxy.log.first { $0.hasPrefix("GET http://127.0.0.1:\(server.port)/bytes/100 ") })
            #expect(line.contains(Self.expectedAuth), "the proxy got the credential: \(line)")
            let seen = try #require(server.requests.last)
            #expect(seen.header("Proxy-Authorization") == nil)
        }
    }

    /// Through a CONNECT tunnel the origin gets the client's bytes as they are: the credential is on
    /// the CONNECT only.
    @Test func tunnelledRequestCarriesNoProxyCredentialToTheOrigin() async throws {
        try await Self.withProxy({ .through(Self.http($0, tunnels: true)) }) { server, proxy, manager in
            var request = URLRequest(url: server.url("/echo"))
            request.setValue("Bearer origin-token", forHTTPHeaderField: "Authorization")
            let (_, response) = try await manager.fetch(request)
            #expect(response.statusCode == 200)
            let connect = try #require(proxy.log.first { $0.hasPrefix("CONNECT 127.0.0.1:\(server.port) ") })
            #expect(connect.contains(Self.expectedAuth))
            #expect(!proxy.log.contains { $0.contains("origin-token") }, "the origin's credential is inside the tunnel")
            let seen = try #require(server.requests.last)
            #expect(seen.header("Proxy-Authorization") == nil, "no proxy credential reaches the origin")
            #expect(seen.header("Authorization") == "Bearer origin-token")
        }
    }

    /// HTTPS through CONNECT: TLS runs with the origin, under the manager's policy for the origin.
    @Test func httpsThroughConnectUsesTheOriginsSecurityPolicy() async throws {
        let pki = try await TestPKI.make()
        let origin = try await pki.server("good")
        defer { origin.stop() }
        try await Self.withProxy({ .through(Self.http($0)) }) { _, proxy, manager in
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("ca.pem")]))
            let (body, response) = try await manager.fetch(from: origin.url("/tls", host: "localhost"))
            #expect(response.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self).hasPrefix("ok GET /tls"))
            let connect = try #require(proxy.log.first { $0.hasPrefix("CONNECT localhost:\(origin.port) ") })
            #expect(connect.contains(Self.expectedAuth))
            #expect(origin.log.contains { $0.hasPrefix("HANDSHAKE-OK") })
            // Roots that do not sign the origin's certificate fail through the proxy as directly.
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("other.pem")]))
            let error = await expectNetworkingError { try await manager.fetch(from: origin.url("/again", host: "localhost")) }
            #expect(error?.kind == .serverTrustFailed(host: "localhost", reason: .untrustedRoot), "\(String(describing: error))")
        }
    }

    @Test func socks5hSendsTheHostNameAndTheCredential() async throws {
        try await Self.withProxy({ .through(.socks5(host: "127.0.0.1", port: $0, credential: Self.credential)) }) { server, proxy, manager in
            let (body, response) = try await manager.fetch(from: URL(string: "http://localhost:\(server.port)/bytes/10")!)
            #expect(response.statusCode == 200)
            #expect(body.count == 10)
            #expect(proxy.log.contains { $0.hasPrefix("SOCKS localhost \(server.port) atyp=3") }, "the proxy resolved the name: \(proxy.log)")
            #expect(server.requests.last?.header("Proxy-Authorization") == nil)
        }
    }

    @Test func socks5WithAWrongPasswordIsAProxyFailure() async throws {
        let wrong = ProxyCredential(user: "proxy-user", password: "wrong")
        try await Self.withProxy({ .through(.socks5(host: "127.0.0.1", port: $0, credential: wrong)) }) { server, proxy, manager in
            let error = await expectNetworkingError { try await manager.fetch(from: server.url("/bytes/10")) }
            #expect(error?.kind == .proxyFailed, "\(String(describing: error))")
            #expect(proxy.log.contains { $0.hasPrefix("SOCKS-DENIED") })
            #expect(server.requests.isEmpty)
            #expect(error.map { !String(describing: $0).contains("wrong") } ?? false, "no password in the description")
        }
    }

    @Test func exclusionsGoDirect() async throws {
        try await Self.withProxy({ .through(Self.http($0), exclusions: ["localhost", ".example.invalid"]) }) { server, proxy, manager in
            _ = try await manager.fetch(from: URL(string: "http://localhost:\(server.port)/bytes/1")!)
            _ = try await manager.fetch(from: server.url("/bytes/2"))
            #expect(!proxy.log.contains { $0.contains("localhost:\(server.port)") }, "localhost is excluded: \(proxy.log)")
            #expect(proxy.log.contains { $0.hasPrefix("GET http://127.0.0.1:\(server.port)/bytes/2 ") }, "127.0.0.1 is not")
            #expect(server.requests.count == 2)
        }
    }

    @Test func refusingProxyIsAProxyFailure() async throws {
        let refusing = try RefusingPort()
        try await Self.withProxy({ _ in .through(Self.http(Int(refusing.port))) }) { server, _, manager in
            let error = await expectNetworkingError { try await manager.fetch(from: server.url("/bytes/1")) }
            #expect(error?.kind == .proxyFailed, "\(String(describing: error))")
            #expect(error?.underlyingError is URLError)
            #expect(server.requests.isEmpty)
        }
    }

    /// A CONNECT refused with 407 is a ``NetworkingError/Kind/proxyFailed`` naming the status; an
    /// absolute-form request's 407 is the proxy's response.
    @Test func proxyAuthenticationRequiredWithoutACredential() async throws {
        try await Self.withProxy({ .through(Self.http($0, credential: nil, tunnels: true)) }) { server, _, manager in
            let error = await expectNetworkingError { try await manager.fetch(from: server.url("/bytes/1")) }
            #expect(error?.kind == .proxyFailed)
            #expect(error?.message.contains("407") == true, "\(String(describing: error))")
            #expect(server.requests.isEmpty)
            try await manager.setProxy(.through(Self.http(Self.proxyPort(of: await manager.proxy), credential: nil)))
            let (_, response) = try await manager.fetch(from: server.url("/bytes/1"))
            #expect(response.statusCode == 407)
        }
    }

    static func proxyPort(of configuration: ProxyConfiguration) -> Int { configuration.httpProxy?.port ?? 0 }

    @Test(.enabled(if: TinyproxyServer.executable != nil, "needs Debian's tinyproxy (apt-get install tinyproxy)"))
    func tinyproxyForwardsAndTunnels() async throws {
        let tinyproxy = try await TinyproxyServer.started(requiring: Self.credential)
        defer { tinyproxy.stop() }
        let pki = try await TestPKI.make()
        let origin = try await pki.server("good")
        defer { origin.stop() }
        try await withServerAndManager { server, manager in
            let configuration = ProxyConfiguration.through(Self.http(tinyproxy.port))
            guard manager.transport == .curl else {
                let error = await expectNetworkingError { try await manager.setProxy(configuration) }
                #expect(error?.kind == .proxyUnsupported)
                return
            }
            try await manager.setProxy(configuration)
            let (body, response) = try await manager.fetch(from: server.url("/bytes/64"))
            #expect(response.statusCode == 200)
            #expect(body.count == 64)
            #expect(tinyproxy.requests.contains { $0.contains("GET http://127.0.0.1:\(server.port)/bytes/64") }, "\(tinyproxy.requests)")
            #expect(server.requests.last?.header("Proxy-Authorization") == nil)
            await manager.setSecurityPolicy(.customRoots([try pki.certificate("ca.pem")]))
            let (_, tls) = try await manager.fetch(from: origin.url("/via-tinyproxy", host: "localhost"))
            #expect(tls.statusCode == 200)
            #expect(tinyproxy.requests.contains { $0.contains("CONNECT localhost:\(origin.port)") }, "\(tinyproxy.requests)")
        }
    }
}

/// The configuration's own rules (pure values, both transports).
struct ProxyConfigurationTests {
    @Test func environmentFollowsCurlsRules() throws {
        let configuration = ProxyConfiguration.fromEnvironment([
            "HTTP_PROXY": "http://ignored:1", "http_proxy": "http://h.example:3128",
            "HTTPS_PROXY": "u%40x:p%3Aw@s.example:8443", "ALL_PROXY": "socks5h://all.example",
            "NO_PROXY": "localhost, .corp.example,10.0.0.1",
        ])
        #expect(configuration.mode == .explicit)
        #expect(configuration.httpProxy == .http(host: "h.example", port: 3128))
        let https = try #require(configuration.httpsProxy)
        #expect(https.kind == .http && https.host == "s.example" && https.port == 8443)
        #expect(https.credential == ProxyCredential(user: "u@x", password: "p:w"))
        #expect(configuration.exclusions == ["localhost", ".corp.example", "10.0.0.1"])
        #expect(configuration.server(for: URL(string: "http://api.corp.example/x")!) == nil)
        #expect(configuration.server(for: URL(string: "https://10.0.0.1/x")!) == nil)
        #expect(configuration.server(for: URL(string: "https://other.example/x")!) == https)
        let onlyAll = ProxyConfiguration.fromEnvironment(["all_proxy": "socks5h://all.example"])
        #expect(onlyAll.httpProxy == .socks5(host: "all.example", port: 1080))
        #expect(onlyAll.httpsProxy == .socks5(host: "all.example", port: 1080))
        #expect(ProxyConfiguration.fromEnvironment(["HTTP_PROXY": "http://cgi:1"]).httpProxy == nil, "HTTP_PROXY is ignored")
    }

    @Test func exclusionMatching() {
        let configuration = ProxyConfiguration.through(.http(host: "p", port: 1), exclusions: ["example.com", "[::1]", "host."])
        #expect(configuration.isExcluded("example.com"))
        #expect(configuration.isExcluded("API.Example.com"))
        #expect(!configuration.isExcluded("notexample.com"))
        #expect(configuration.isExcluded("::1"))
        #expect(configuration.isExcluded("host"))
        #expect(ProxyConfiguration.through(.http(host: "p", port: 1), exclusions: ["*"]).isExcluded("anything"))
        #expect(ProxyConfiguration.environment.server(for: URL(string: "http://a/")!) == nil)
        #expect(ProxyConfiguration.direct.server(for: URL(string: "http://a/")!) == nil)
        #expect(ProxyServer.socks5(host: "::1", port: 9).url == "socks5h://[::1]:9")
        #expect(!String(describing: ProxyServer.http(host: "p", port: 1, credential: .init(user: "u", password: "pw"))).contains("pw"))
    }
}

/// What FoundationNetworking does with `connectionProxyDictionary` (the reason the URLSession
/// transport refuses explicit proxies): it is not applied — the request goes direct.
@Suite(.enabled(if: TestPKI.isAvailable, "needs python3 (the proxy test server)"))
struct URLSessionProxyDictionaryTests {
    @Test func connectionProxyDictionaryIsNotApplied() async throws {
        let proxy = try await ProxyTestServer.started()
        defer { proxy.stop() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let configuration = SessionManager.defaultConfiguration()
        configuration.connectionProxyDictionary = ["HTTPEnable": 1, "HTTPProxy": "127.0.0.1", "HTTPPort": proxy.port]
        let manager = SessionManager(configuration: configuration, transport: .urlSession)
        try await withDeadline {
            let (_, response) = try await manager.fetch(from: server.url("/bytes/3"))
            #expect(response.statusCode == 200)
        }
        await manager.invalidateAndCancel()
        #expect(!proxy.log.contains { $0.hasPrefix("GET ") }, "FoundationNetworking went through the proxy: update Proxies.md and setProxy")
        #expect(server.requests.count == 1)
    }
}

/// ``ProxyConfiguration/environment`` live: the proxy variables can only be set for a whole process
/// (`setenv` while other tests' threads call `getenv` is a race), so the test runs this test
/// bundle again as a child with `http_proxy` and `no_proxy` set, filtered to
/// ``ProxyEnvironmentChild``, on the run's transport.
@Suite(.enabled(if: TestPKI.isAvailable, "needs python3 (the proxy test server)"))
struct ProxyEnvironmentTests {
    @Test func environmentVariablesRouteTheDefaultConfiguration() async throws {
        let proxy = try await ProxyTestServer.started()
        defer { proxy.stop() }
        let server = try LoopbackServer()
        defer { server.stop() }
        let executable = ProcessInfo.processInfo.arguments[0]
        let arguments = [
            "http_proxy=http://127.0.0.1:\(proxy.port)", "no_proxy=localhost",
            "AN_PROXY_CHILD_URLS=\(server.url("/bytes/7")) http://localhost:\(server.port)/bytes/8",
            "AN_PROXY_CHILD_DIRECT_URL=\(server.url("/bytes/9"))",
            executable, "--testing-library", "swift-testing", "--filter", "ProxyEnvironmentChild",
        ]
        let (status, output) = try await Task.detached { try Subprocess.run("/usr/bin/env", arguments) }.value
        #expect(status == 0, "the child run failed:\n\(output.suffix(3000))")
        #expect(output.contains("ProxyEnvironmentChild"), "the child ran the child test:\n\(output.suffix(2000))")
        #expect(proxy.log.contains { $0.hasPrefix("GET http://127.0.0.1:\(server.port)/bytes/7 ") }, "http_proxy is read: \(proxy.log)")
        #expect(!proxy.log.contains { $0.contains("/bytes/8") }, "no_proxy is read: \(proxy.log)")
        #expect(!proxy.log.contains { $0.contains("/bytes/9") }, ".direct ignores the environment: \(proxy.log)")
        #expect(server.requests.map(\.path).sorted() == (SessionManager.Transport.platformDefault == .curl
            ? ["/bytes/7", "/bytes/8", "/bytes/9"] : ["/bytes/7", "/bytes/8"]))
    }
}

/// Runs only as the child of ``ProxyEnvironmentTests`` (with `AN_PROXY_CHILD_URLS` set).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AN_PROXY_CHILD_URLS"] != nil, "runs only as a child of ProxyEnvironmentTests"))
struct ProxyEnvironmentChild {
    @Test func fetchesThroughTheEnvironmentsProxy() async throws {
        let environment = ProcessInfo.processInfo.environment
        let urls = (environment["AN_PROXY_CHILD_URLS"] ?? "").split(separator: " ").compactMap { URL(string: String($0)) }
        let manager = SessionManager()
        try await withDeadline {
            #expect(await manager.proxy == .environment)
            for url in urls {
                let (_, response) = try await manager.fetch(from: url)
                #expect(response.statusCode == 200)
            }
            if manager.transport == .curl, let direct = environment["AN_PROXY_CHILD_DIRECT_URL"].flatMap(URL.init(string:)) {
                try await manager.setProxy(.direct)
                let (_, response) = try await manager.fetch(from: direct)
                #expect(response.statusCode == 200)
            }
        }
        await manager.invalidateAndCancel()
    }
}
