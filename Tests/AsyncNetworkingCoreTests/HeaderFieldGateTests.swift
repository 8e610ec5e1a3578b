@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// The rule: every request header field, from every source — the caller's request, the
/// configuration's headers, the cookie jar, an adapter, a redirect hook — passes one validation
/// (``HeaderFieldValidation``: a token name, no control character but HTAB in a value) before any
/// transport writes it, on every connection kind: HTTP/1.1 on the run's transport, HTTP/2 over TLS,
/// through a proxy, and the WebSocket handshake. A field that breaks it fails the call with
/// ``NetworkingError/Kind/requestSerializationFailed`` and nothing reaches the server.
///
/// Before, a jar cookie or a configuration field holding `\r\nX-Injected: yes` was written into the
/// WebSocket handshake as is (the server read an extra header line), and curl let every control
/// character but CR, LF and NUL through.
@Suite("One header-field rule for every source and connection kind", .enabled(if: TestPKI.isAvailable, "needs python3 and openssl"))
struct HeaderFieldGateTests {
    static let injected = "a\r\nX-Injected: yes"
    static let badValues = [injected, "a\nX-Injected: yes", "a\rb", "a\u{0}b", "a\u{0B}b", "a\u{1B}b", "a\u{7F}b"]

    /// `request` with the field `X-Test: value`, set as a whole (`setValue` on a `URLRequest`
    /// drops a value with CR, LF or NUL itself, without a word, so a caller who sets
    /// `allHTTPHeaderFields` is the one whose value reaches the library).
    static func placing(_ value: String, in request: URLRequest, name: String = "X-Test") -> URLRequest {
        var placed = request
        var fields = placed.allHTTPHeaderFields ?? [:]
        fields[name] = value
        placed.allHTTPHeaderFields = fields
        return placed
    }

    /// Where the bad field comes from.
    enum Source: String, CaseIterable, Sendable {
        case request, configuration, jar, adapter, redirectHook
    }

    /// A manager (and its jar, configuration and hooks) with `value` placed as `source` puts it.
    static func manager(
        _ source: Source, _ value: String, for url: URL, transport: SessionManager.Transport = .platformDefault,
        policy: SecurityPolicy = .default
    ) async -> SessionManager {
        let configuration = SessionManager.defaultConfiguration()
        if source == .configuration { configuration.httpAdditionalHeaders = ["X-Test": value] }
        let jar = CookieJar()
        if source == .jar {
            // A jar holding such a value cannot be made through its API any more (insert and the
            // file refuse it); the gate must hold even so.
            _ = jar.store(ParsedSetCookie(name: "session", value: value), from: CookieRules.Target(url)!)
        }
        let manager = SessionManager(configuration: configuration, transport: transport, securityPolicy: policy, cookieJar: jar)
        if source == .redirectHook {
            await manager.setHooks(SessionHooks(redirect: { context in placing(value, in: context.proposedRequest) }))
        }
        return manager
    }

    /// Sends a GET of `url` (for the redirect hook: of `redirecting`, which redirects to `url`) with
    /// `value` placed by `source`; the error it fails with.
    static func send(
        _ source: Source, _ value: String, to url: URL, redirecting: URL? = nil, transport: SessionManager.Transport = .platformDefault,
        policy: SecurityPolicy = .default, proxy: ProxyConfiguration? = nil
    ) async throws -> NetworkingError? {
        let manager = await manager(source, value, for: url, transport: transport, policy: policy)
        if let proxy { try await manager.setProxy(proxy) }
        defer { Task { await manager.invalidateAndCancel() } }
        switch source {
        case .adapter:
            var client = HTTPClient(manager: manager)
            client.pipeline.adapters = [RequestAdapterClosure { request, _ in placing(value, in: request) }]
            return await expectNetworkingError { _ = try await client.get(url) }
        case .request:
            return await expectNetworkingError { _ = try await manager.data(for: placing(value, in: URLRequest(url: url))) }
        case .redirectHook:
            return await expectNetworkingError { _ = try await manager.data(from: redirecting ?? url) }
        case .configuration, .jar:
            return await expectNetworkingError { _ = try await manager.data(from: url) }
        }
    }

    /// HTTP/1.1 to a loopback server on the run's transport (curl or URLSession), every source and
    /// every kind of bad value: refused, and the server saw nothing (for the redirect hook: only the
    /// redirecting request, which carried no bad field).
    @Test(arguments: Source.allCases)
    func http1OnTheRunsTransport(_ source: Source) async throws {
        try await withDeadline {
            let server = try LoopbackServer()
            defer { server.stop() }
            let target = server.url("/bytes/1")
            let redirecting = URL(string: "http://127.0.0.1:\(server.port)/redirect-to?url=\(target.absoluteString)")!
            for value in Self.badValues {
                let before = server.requests.count
                let error = try await Self.send(source, value, to: target, redirecting: redirecting)
                #expect(error?.kind == .requestSerializationFailed, "\(source) \(value.debugDescription): \(String(describing: error))")
                let seen = server.requests.dropFirst(before)
                #expect(seen.count == (source == .redirectHook ? 1 : 0), "\(source) \(value.debugDescription): \(seen.map(\.target))")
                #expect(seen.allSatisfy { $0.header("X-Injected") == nil && $0.header("X-Test") == nil })
            }
        }
    }

    /// A field name that is not a token (a `URLRequest` keeps any name), from the caller, the
    /// configuration and an adapter.
    @Test(arguments: ["X-Test\r\nX-Injected", "X Test", "X:Test", "X-Tést", ""])
    func aNameThatIsNotATokenIsRefused(_ name: String) async throws {
        try await withDeadline {
            let server = try LoopbackServer()
            defer { server.stop() }
            let url = server.url("/bytes/1")
            let manager = SessionManager()
            let error = await expectNetworkingError { _ = try await manager.data(for: Self.placing("v", in: URLRequest(url: url), name: name)) }
            #expect(error?.kind == .requestSerializationFailed, "\(name.debugDescription): \(String(describing: error))")
            await manager.invalidateAndCancel()
            let configuration = SessionManager.defaultConfiguration()
            configuration.httpAdditionalHeaders = [name: "v"]
            let configured = SessionManager(configuration: configuration)
            let refused = await expectNetworkingError { _ = try await configured.data(from: url) }
            #expect(refused?.kind == .requestSerializationFailed, "\(name.debugDescription): \(String(describing: refused))")
            await configured.invalidateAndCancel()
            #expect(server.requests.isEmpty)
        }
    }

    /// The same through an HTTP proxy (absolute-form, curl): the proxy receives nothing.
    @Test(arguments: Source.allCases)
    func http1ThroughAProxy(_ source: Source) async throws {
        let proxy = try await ProxyTestServer.started()
        defer { proxy.stop() }
        try await withDeadline {
            let server = try LoopbackServer()
            defer { server.stop() }
            let target = server.url("/bytes/1")
            let redirecting = URL(string: "http://127.0.0.1:\(server.port)/redirect-to?url=\(target.absoluteString)")!
            let configuration = ProxyConfiguration.through(ProxyTests.http(proxy.port, credential: nil))
            let error = try await Self.send(source, Self.injected, to: target, redirecting: redirecting, transport: .curl, proxy: configuration)
            #expect(error?.kind == .requestSerializationFailed, "\(source): \(String(describing: error))")
            #expect(!proxy.log.contains { $0.hasPrefix("GET \(target.absoluteString) ") }, "\(proxy.log)")
            #expect(server.requests.filter { $0.target == "/bytes/1" }.isEmpty)
        }
    }

    /// HTTP/2 over TLS (nginx, curl): refused before a stream is opened.
    @Test(.enabled(if: NginxTestServer.isAvailable, "needs nginx"), arguments: [Source.request, .configuration, .jar, .adapter])
    func http2OverTLS(_ source: Source) async throws {
        let pki = try await TestPKI.make()
        let server = try await NginxTestServer.started(pki: pki, files: ["f.bin": Data("x".utf8)])
        defer { server.stop() }
        let policy = SecurityPolicy.customRoots([try pki.certificate("ca.pem")])
        try await withDeadline {
            // The control: this manager reaches the server over HTTP/2.
            let plain = SessionManager(transport: .curl, securityPolicy: policy)
            let (body, _) = try await plain.data(from: server.url("f.bin"))
            #expect(body == Data("x".utf8))
            await plain.invalidateAndCancel()
            let error = try await Self.send(source, Self.injected, to: server.url("f.bin"), transport: .curl, policy: policy)
            #expect(error?.kind == .requestSerializationFailed, "\(source): \(String(describing: error))")
        }
    }
}

/// The same rule on the WebSocket opening handshake (curl), `ws` and `wss`, direct and through a
/// proxy: a bad field from the caller's `headers`, the configuration, the jar or an
/// ``HTTPClient``'s default headers fails the call before anything is connected.
@Suite("One header-field rule for the WebSocket handshake", .enabled(if: WebSocketTestServer.python != nil && TestPKI.isAvailable, "needs python3 and openssl"))
struct WebSocketHeaderFieldGateTests {
    enum Source: String, CaseIterable, Sendable {
        case headers, configuration, jar, clientDefaultHeaders
    }

    static func open(_ source: Source, _ value: String, url: URL, policy: SecurityPolicy, proxy: ProxyConfiguration?) async throws -> NetworkingError? {
        let gateSource: HeaderFieldGateTests.Source = switch source {
        case .headers, .clientDefaultHeaders: .request
        case .configuration: .configuration
        case .jar: .jar
        }
        let http = URL(string: url.absoluteString.replacingOccurrences(of: "ws", with: "http", options: .anchored))!
        let manager = await HeaderFieldGateTests.manager(gateSource, value, for: http, transport: .curl, policy: policy)
        if let proxy { try await manager.setProxy(proxy) }
        defer { Task { await manager.invalidateAndCancel() } }
        switch source {
        case .headers:
            return await expectNetworkingError { _ = try await manager.webSocket(to: url, headers: ["X-Test": value]) }
        case .clientDefaultHeaders:
            var client = HTTPClient(manager: manager)
            client.defaultHeaders = ["X-Test": value]
            return await expectNetworkingError { _ = try await client.webSocket(url) }
        case .configuration, .jar:
            return await expectNetworkingError { _ = try await manager.webSocket(to: url) }
        }
    }

    @Test(arguments: [false, true], [false, true])
    func everySourceOnEveryHandshake(tls: Bool, throughProxy: Bool) async throws {
        let proxy = try await ProxyTestServer.started()
        defer { proxy.stop() }
        try await withWebSocketServer(tls: tls) { server, manager in
            let pki = try await TestPKI.make()
            let policy: SecurityPolicy = tls ? .customRoots([try pki.certificate("ca.pem")]) : .default
            let configuration = throughProxy ? ProxyConfiguration.through(ProxyTests.http(proxy.port, credential: nil)) : nil
            for source in Source.allCases {
                for value in HeaderFieldGateTests.badValues {
                    let error = try await Self.open(source, value, url: server.url("/cookies"), policy: policy, proxy: configuration)
                    #expect(error?.kind == .requestSerializationFailed, "\(source) \(value.debugDescription): \(String(describing: error))")
                }
            }
            // Nothing reached the server, nor the proxy: the only handshake it saw is this one.
            let requests = try await manager.webSocket(to: server.url("/requests"))
            var iterator = requests.messages.makeAsyncIterator()
            #expect(try await iterator.next() == .text(""))
            try await requests.close()
            #expect(!proxy.log.contains { $0.hasPrefix("CONNECT") }, "\(proxy.log)")
        }
    }
}
