@testable import AsyncNetworkingTestSupport

/// Rule: a proxy the environment names is never bypassed because its value cannot be used.
/// ``ProxyConfiguration/fromEnvironment(_:)`` keeps, per scheme, the variable whose value names no
/// proxy this library speaks (it does not parse as curl parses it, or names an `https://` or SOCKS4
/// proxy); a request it would route fails with ``NetworkingError/Kind/proxyUnsupported`` naming the
/// variable (never its value), before anything is sent — as curl fails closed. With
/// ``ProxyConfiguration/environment`` libcurl reads the variables itself and fails the same
/// requests with ``NetworkingError/Kind/proxyFailed``. Excluded hosts and other schemes go on.
@Suite("Proxies from the environment fail closed")
struct ProxyEnvironmentRulesTests {
    /// Values curl 7.88 refuses (`curl: (5) Unsupported proxy syntax`, `(7) Unsupported proxy
    /// scheme`) or that this library cannot speak, for `https_proxy`.
    static let unusable = [
        "http://[bad", "http://:3128", "http://proxy host:1", " ", "http://127.0.0.1:99999",
        "ftp://127.0.0.1:3128", "https://127.0.0.1:3128", "socks4://127.0.0.1:1080", "socks4a://127.0.0.1:1080",
        "http://user:pa ss@[::1",
    ]

    @Test(arguments: unusable)
    func anUnusableValueIsKeptAsARefusalNotDropped(_ value: String) throws {
        let configuration = ProxyConfiguration.fromEnvironment(["https_proxy": value, "http_proxy": "http://h.example:3128"])
        #expect(configuration.httpsProxy == nil)
        #expect(configuration.unusableEnvironmentProxies == ["https": "https_proxy"])
        let refusal = try #require(configuration.refusal(for: URL(string: "https://api.example/x")!))
        #expect(refusal.kind == .proxyUnsupported)
        #expect(refusal.message.contains("https_proxy"), "\(refusal.message)")
        if value.count > 3 { #expect(!String(describing: refusal).contains(value), "the value is not printed: \(refusal)") }
        #expect(configuration.refusal(for: URL(string: "http://api.example/x")!) == nil, "http has its own proxy")
        #expect(configuration.server(for: URL(string: "http://api.example/x")!) == .http(host: "h.example", port: 3128))
    }

    @Test func theVariableThatWouldHaveBeenReadIsNamed() throws {
        let all = ProxyConfiguration.fromEnvironment(["ALL_PROXY": "http://[bad", "no_proxy": ".corp.example"])
        #expect(all.unusableEnvironmentProxies == ["http": "ALL_PROXY", "https": "ALL_PROXY"])
        #expect(all.refusal(for: URL(string: "http://a.example/")!)?.message.contains("ALL_PROXY") == true)
        #expect(all.refusal(for: URL(string: "http://in.corp.example/")!) == nil, "an excluded host goes direct, as with curl")
        let http = ProxyConfiguration.fromEnvironment(["http_proxy": "garbage:port", "all_proxy": "http://fine:1"])
        #expect(http.unusableEnvironmentProxies == ["http": "http_proxy"], "a variable that is set and unusable is not replaced by all_proxy")
        #expect(http.httpsProxy == .http(host: "fine", port: 1))
        // Setting the scheme's proxy yourself replaces the refusal.
        var repaired = http
        repaired.httpProxy = .http(host: "ok", port: 8080)
        #expect(repaired.refusal(for: URL(string: "http://a.example/")!) == nil)
        // Values curl takes are still taken.
        let good = ProxyConfiguration.fromEnvironment(["http_proxy": "h.example:3128", "https_proxy": "socks5://s:1", "all_proxy": ""])
        #expect(good.unusableEnvironmentProxies.isEmpty)
        #expect(good.httpProxy == .http(host: "h.example", port: 3128))
    }

    /// Through the manager: the request fails before anything is sent; excluded hosts go on.
    @Test func aManagerNeverGoesDirectInstead() async throws {
        try await withServerAndManager { server, manager in
            let configuration = ProxyConfiguration.fromEnvironment(["http_proxy": "http://[bad", "no_proxy": "localhost"])
            guard manager.transport == .curl else {
                let error = await expectNetworkingError { try await manager.setProxy(configuration) }
                #expect(error?.kind == .proxyUnsupported)
                return
            }
            try await manager.setProxy(configuration)
            let error = await expectNetworkingError { try await manager.data(from: server.url("/bytes/4")) }
            #expect(error?.kind == .proxyUnsupported, "\(String(describing: error))")
            #expect(error?.message.contains("http_proxy") == true)
            #expect(server.requests.isEmpty, "nothing went direct")
            let (_, excluded) = try await manager.data(from: URL(string: "http://localhost:\(server.port)/bytes/5")!)
            #expect(excluded.statusCode == 200)
            // A redirect to a host the environment's broken proxy would carry fails the same way.
            let redirect = await expectNetworkingError {
                try await manager.data(from: URL(string: "http://localhost:\(server.port)/redirect-to?url=http://127.0.0.1:\(server.port)/bytes/6")!)
            }
            #expect(redirect?.kind == .proxyUnsupported)
            #expect(!server.requests.contains { $0.path == "/bytes/6" })
        }
    }

    /// A WebSocket handshake the broken variable would route is refused the same way.
    @Test(.enabled(if: defaultTransportIsCurl, "WebSockets need the curl transport"))
    func aWebSocketNeverGoesDirectInstead() async throws {
        try await withServerAndManager { server, manager in
            try await manager.setProxy(ProxyConfiguration.fromEnvironment(["http_proxy": "socks4://127.0.0.1:1080"]))
            let error = await expectNetworkingError { try await manager.webSocket(to: URL(string: "ws://127.0.0.1:\(server.port)/echo")!) }
            #expect(error?.kind == .proxyUnsupported, "\(String(describing: error))")
            #expect(error?.message.contains("http_proxy") == true)
            #expect(server.requests.isEmpty, "nothing went direct")
        }
    }

    /// ``ProxyConfiguration/environment`` in a child process with unusable variables: libcurl (the
    /// curl transport, and FoundationNetworking's) fails the request; nothing reaches the server.
    @Test func theEnvironmentModeFailsClosedToo() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        for value in ["http://[bad", "ftp://127.0.0.1:3128"] {
            let executable = ProcessInfo.processInfo.arguments[0]
            let arguments = [
                "http_proxy=\(value)", "AN_PROXY_FAIL_CHILD_URL=\(server.url("/bytes/7"))",
                executable, "--testing-library", "swift-testing", "--filter", "ProxyEnvironmentFailureChild",
            ]
            let (status, output) = try await offThePool { try Subprocess.run("/usr/bin/env", arguments) }
            #expect(status == 0, "the child run failed for \(value):\n\(output.suffix(3000))")
            #expect(output.contains("ProxyEnvironmentFailureChild"), "the child ran:\n\(output.suffix(2000))")
        }
        #expect(server.requests.isEmpty, "nothing went direct: \(server.requests.map(\.path))")
    }
}

/// Runs only as the child of ``ProxyEnvironmentRulesTests`` (with `AN_PROXY_FAIL_CHILD_URL` set).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AN_PROXY_FAIL_CHILD_URL"] != nil, "runs only as a child of ProxyEnvironmentRulesTests"))
struct ProxyEnvironmentFailureChild {
    @Test func theRequestFailsAtTheProxy() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["AN_PROXY_FAIL_CHILD_URL"].flatMap(URL.init(string:)))
        let manager = SessionManager()
        try await withDeadline {
            let error = await expectNetworkingError { try await manager.data(from: url) }
            if manager.transport == .curl {
                #expect(error?.kind == .proxyFailed, "\(String(describing: error))")
            }
        }
        await manager.invalidateAndCancel()
    }
}
