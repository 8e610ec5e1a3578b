@testable import AsyncNetworkingTestSupport

/// The ``CookieJar`` on a manager, against servers on 127.0.0.1: LoopbackServer (`/response-headers`
/// sets any header) and ``ScriptedCookieServer`` (exact `Set-Cookie` lines, redirects with cookies).
/// Runs on the transport of the environment (`ASYNCNETWORKING_TRANSPORT=urlsession` for URLSession).
@Suite("Cookie jar on a manager")
struct CookieJarTests {
    /// Runs `body` with a manager using `jar`, invalidated afterwards.
    private func withJarManager<T: Sendable>(
        _ jar: CookieJar, _ body: @escaping @Sendable (SessionManager) async throws -> T
    ) async throws -> T {
        let manager = SessionManager(cookieJar: jar)
        #expect(manager.cookieJar === jar)
        do {
            let result = try await withDeadline { try await body(manager) }
            await manager.invalidateAndCancel()
            return result
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
    }

    private static func setCookieURL(_ server: LoopbackServer, _ cookies: [String]) -> URL {
        let query = cookies.map { "Set-Cookie=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        return server.url("/response-headers?" + query.joined(separator: "&"))
    }

    @Test("Set-Cookie stored and sent back, several fields in one response, by path")
    func storedAndSentBack() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let jar = CookieJar()
        try await withJarManager(jar) { manager in
            _ = try await manager.data(from: Self.setCookieURL(server, ["a=1; Path=/", "b=2; Path=/", "deep=3; Path=/echo"]))
            _ = try await manager.data(from: server.url("/echo"))
            #expect(server.requests.last { $0.path == "/echo" }?.header("Cookie") == "deep=3; a=1; b=2")
            _ = try await manager.data(from: server.url("/text"))
            #expect(server.requests.last { $0.path == "/text" }?.header("Cookie") == "a=1; b=2", "/echo's cookie stays on its path")
        }
        #expect(Set(jar.allCookies.map(\.name)) == ["a", "b", "deep"])
    }

    @Test("off by default: a manager without a jar sends no Cookie")
    func offByDefault() async throws {
        try await withServerAndManager { server, manager in
            #expect(manager.cookieJar == nil)
            _ = try await manager.data(from: Self.setCookieURL(server, ["a=1; Path=/"]))
            _ = try await manager.data(from: server.url("/echo"))
            #expect(server.requests.last { $0.path == "/echo" }?.header("Cookie") == nil)
        }
    }

    @Test("exact Set-Cookie lines: Expires with commas, Max-Age=0 deletes, Secure refused over http")
    func exactLines() async throws {
        let server = try ScriptedCookieServer([
            "/set": .init(headers: [
                "Set-Cookie: e=1; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Path=/",
                "Set-Cookie: x=2; Path=/",
                "Set-Cookie: s=3; Secure; Path=/",
                "Set-Cookie: d=4; Domain=com; Path=/",
                "Set-Cookie: n=5; Max-Age=60; Path=/",
            ]),
            "/delete": .init(headers: ["Set-Cookie: x=gone; Max-Age=0; Path=/"]),
        ])
        defer { server.stop() }
        let jar = CookieJar()
        try await withJarManager(jar) { manager in
            _ = try await manager.data(from: server.url("/set"))
            _ = try await manager.data(from: server.url("/check"))
            #expect(server.cookie(at: "/check") == "e=1; x=2; n=5")
            _ = try await manager.data(from: server.url("/delete"))
            _ = try await manager.data(from: server.url("/check"))
            #expect(server.cookie(at: "/check") == "e=1; n=5")
        }
        let e = try #require(jar.allCookies.first { $0.name == "e" })
        #expect(e.isPersistent && e.isHostOnly && e.domain == "127.0.0.1")
    }

    @Test("host-only: a cookie of 127.0.0.1 never goes to localhost")
    func hostOnly() async throws {
        let server = try ScriptedCookieServer(["/set": .init(headers: ["Set-Cookie: h=1; Path=/"])])
        defer { server.stop() }
        try await withJarManager(CookieJar()) { manager in
            _ = try await manager.data(from: server.url("/set"))
            _ = try await manager.data(from: server.url("/other", host: "localhost"))
            _ = try await manager.data(from: server.url("/same"))
            #expect(server.cookie(at: "/other") == nil)
            #expect(server.cookie(at: "/same") == "h=1")
        }
    }

    @Test("a redirect's cookies are stored before it is followed; another host gets its own")
    func redirectCookies() async throws {
        let server = try ScriptedCookieServer([:])
        defer { server.stop() }
        let scripted = try ScriptedCookieServer([
            "/login": .init(status: "302 Found", headers: ["Set-Cookie: sid=abc; Path=/", "Location: /home"]),
            "/away": .init(status: "302 Found", headers: [
                "Set-Cookie: sid=abc; Path=/", "Location: http://localhost:\(server.port)/there",
            ]),
            "/hop": .init(status: "307 Temporary Redirect", headers: ["Set-Cookie: hop=1; Path=/", "Location: /home2"]),
        ])
        defer { scripted.stop() }
        try await withJarManager(CookieJar()) { manager in
            let (body, response) = try await manager.data(from: scripted.url("/login"))
            #expect(response.statusCode == 200 && String(decoding: body, as: UTF8.self) == "ok")
            #expect(scripted.cookie(at: "/home") == "sid=abc")
            _ = try await manager.data(from: scripted.url("/hop"))
            #expect(scripted.cookie(at: "/home2") == "sid=abc; hop=1")
            _ = try await manager.data(from: scripted.url("/away"))
            #expect(server.seen.last?.target == "/there")
            #expect(server.cookie(at: "/there") == nil, "host-only cookies of 127.0.0.1 stay there")
        }
    }

    @Test("a request's own Cookie is left alone; httpShouldHandleCookies = false turns the jar off")
    func ownCookieLeftAlone() async throws {
        let server = try ScriptedCookieServer(["/set": .init(headers: ["Set-Cookie: jar=1; Path=/"])])
        defer { server.stop() }
        let jar = CookieJar()
        try await withJarManager(jar) { manager in
            _ = try await manager.data(from: server.url("/set"))
            var own = URLRequest(url: server.url("/own"))
            own.setValue("mine=1", forHTTPHeaderField: "Cookie")
            _ = try await manager.data(for: own)
            #expect(server.cookie(at: "/own") == "mine=1")
            var off = URLRequest(url: server.url("/set2"))
            off.httpShouldHandleCookies = false
            _ = try await manager.data(for: off)
            #expect(server.cookie(at: "/set2") == nil)
        }
        #expect(jar.allCookies.map(\.name) == ["jar"])
    }

    @Test("HTTPClient uses its manager's jar")
    func clientUsesJar() async throws {
        let server = try ScriptedCookieServer(["/login": .init(headers: ["Set-Cookie: token=t1; Path=/api; HttpOnly"])])
        defer { server.stop() }
        let jar = CookieJar()
        try await withJarManager(jar) { manager in
            let client = HTTPClient(manager: manager, baseURL: server.url("/"))
            _ = try await client.get("login", serializer: DataResponseSerializer())
            _ = try await client.get("api/me", serializer: DataResponseSerializer())
            _ = try await client.get("other", serializer: DataResponseSerializer())
            #expect(server.cookie(at: "/api/me") == "token=t1")
            #expect(server.cookie(at: "/other") == nil)
        }
        #expect(jar.allCookies.first?.isHTTPOnly == true)
    }

    @Test("two managers sharing a jar share cookies; separate jars do not")
    func sharedJar() async throws {
        let server = try ScriptedCookieServer(["/set": .init(headers: ["Set-Cookie: shared=1; Path=/"])])
        defer { server.stop() }
        let jar = CookieJar()
        try await withJarManager(jar) { first in
            _ = try await first.data(from: server.url("/set"))
        }
        try await withJarManager(jar) { second in
            _ = try await second.data(from: server.url("/a"))
        }
        try await withJarManager(CookieJar()) { third in
            _ = try await third.data(from: server.url("/b"))
        }
        #expect(server.cookie(at: "/a") == "shared=1")
        #expect(server.cookie(at: "/b") == nil)
    }
}
