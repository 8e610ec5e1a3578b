@testable import TransportSeam
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Credentials and schemes on redirects: a credential never follows a redirect to another origin,
/// whatever the status or the source of the header, and a redirect to another scheme is refused.
@Suite struct RedirectCredentialRulesTests {
    private static let secrets = [
        "Authorization": "Bearer SECRET-TOKEN",
        "Cookie": "session=SECRET-COOKIE",
        "Proxy-Authorization": "Basic U0VDUkVU",
    ]

    /// `/redirect-to` on `server` sending the client to `target` (percent-encoded, so the query
    /// holds no literal `://`).
    private static func redirect(_ server: LoopbackServer, to target: String, status: Int) -> URL {
        let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return server.url("/redirect-to?url=\(encoded)&status=\(status)")
    }

    private static func request(_ url: URL, method: String) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in secrets { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("kept", forHTTPHeaderField: "X-Other")
        return request
    }

    /// The header names (lowercased) of the one request the server saw at `path`.
    private static func headers(at path: String, _ server: LoopbackServer) -> Set<String>? {
        let matching = server.requests.filter { $0.path == path }
        guard matching.count == 1 else { return nil }
        return Set(matching[0].headers.map { $0.0.lowercased() })
    }

    @Test(arguments: [301, 302, 303, 307, 308])
    func credentialsAreDroppedWhenARedirectChangesHost(_ status: Int) async throws {
        try await withServerAndManager(deadline: 60) { server, manager in
            let target = "http://localhost:\(server.port)/echo"
            let method = status >= 307 ? "POST" : "GET"
            let body = Data(repeating: 7, count: 5_000)
            let request = Self.request(Self.redirect(server, to: target, status: status), method: method)
            let (_, response) = method == "POST"
                ? try await manager.upload(for: request, from: body)
                : try await manager.data(for: request)
            #expect(response.statusCode == 200)
            let seen = try #require(Self.headers(at: "/echo", server))
            for name in Self.secrets.keys { #expect(!seen.contains(name.lowercased()), "\(name) followed the redirect") }
            #expect(seen.contains("x-other"))
            if method == "POST" {
                let echoed = try #require(server.requests.last { $0.path == "/echo" })
                #expect(echoed.method == "POST")
                #expect(echoed.bodyLength == body.count)
            }
        }
    }

    /// The control: on the same origin nothing is stripped.
    @Test(arguments: [302, 307])
    func credentialsStayOnTheSameOrigin(_ status: Int) async throws {
        try await withServerAndManager(deadline: 60) { server, manager in
            let method = status == 307 ? "POST" : "GET"
            let request = Self.request(Self.redirect(server, to: "/echo", status: status), method: method)
            let (_, response) = method == "POST"
                ? try await manager.upload(for: request, from: Data(count: 100))
                : try await manager.data(for: request)
            #expect(response.statusCode == 200)
            let seen = try #require(Self.headers(at: "/echo", server))
            for name in Self.secrets.keys { #expect(seen.contains(name.lowercased())) }
        }
    }

    /// The hook's request is what is sent on a 307, body included; its proposal was already stripped.
    @Test func theRedirectHooksRequestIsWhatIsSent() async throws {
        try await withServerAndManager(deadline: 60) { server, manager in
            let proposals = LockedBox<[URLRequest]>([])
            await manager.setHooks(SessionHooks(redirect: { context in
                proposals.withValue { $0.append(context.proposedRequest) }
                var request = context.proposedRequest
                request.setValue(nil, forHTTPHeaderField: "X-Other")
                request.setValue("yes", forHTTPHeaderField: "X-From-Hook")
                return request
            }))
            let target = "http://localhost:\(server.port)/echo"
            let request = Self.request(Self.redirect(server, to: target, status: 307), method: "POST")
            let (_, response) = try await manager.upload(for: request, from: Data(repeating: 1, count: 3_000))
            #expect(response.statusCode == 200)
            let proposal = try #require(proposals.value.first)
            #expect(proposal.value(forHTTPHeaderField: "Authorization") == nil)
            #expect(proposal.httpMethod == "POST")
            let seen = try #require(Self.headers(at: "/echo", server))
            #expect(seen.contains("x-from-hook"))
            #expect(!seen.contains("x-other"))
            #expect(!seen.contains("authorization"))
            #expect(server.requests.last { $0.path == "/echo" }?.bodyLength == 3_000)
        }
    }

    /// Item 5: a redirect to anything but http/https is never followed, and nothing is sent there.
    @Test(arguments: [302, 307])
    func aRedirectToAnotherSchemeFailsWithUnsupportedSchemeAndSendsNothing(_ status: Int) async throws {
        try await withServerAndManager(deadline: 60) { server, manager in
            let target = "ftp://127.0.0.1:\(server.port)/upload"
            let method = status == 307 ? "POST" : "GET"
            let request = Self.request(Self.redirect(server, to: target, status: status), method: method)
            let error = await expectNetworkingError {
                method == "POST"
                    ? try await manager.upload(for: request, from: Data(repeating: 2, count: 4_000))
                    : try await manager.data(for: request)
            }
            #expect(error?.kind == .unsupportedScheme("ftp"))
            #expect(server.requests.count == 1)
            #expect(server.stats.connectionCount == 1)
        }
    }

    @Test func theRulesArePure() {
        let a = URL(string: "http://127.0.0.1:8080/x")!
        #expect(RedirectRules.isSameOrigin(a, URL(string: "http://127.0.0.1:8080/y?z")!))
        #expect(!RedirectRules.isSameOrigin(a, URL(string: "http://localhost:8080/x")!))
        #expect(!RedirectRules.isSameOrigin(a, URL(string: "http://127.0.0.1:8081/x")!))
        #expect(!RedirectRules.isSameOrigin(a, URL(string: "https://127.0.0.1:8080/x")!))
        #expect(RedirectRules.isSameOrigin(URL(string: "https://Example.com/")!, URL(string: "https://example.com:443/a")!))
        #expect(RedirectRules.unsupportedScheme(of: URL(string: "ftp://h/x")!) == "ftp")
        #expect(RedirectRules.unsupportedScheme(of: URL(string: "file:///etc/passwd")!) == "file")
        #expect(RedirectRules.unsupportedScheme(of: URL(string: "HTTPS://h/x")!) == nil)
    }
}

/// A value shared between a hook and the test, behind a lock.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    // reason: every access goes through `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func withValue<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}
