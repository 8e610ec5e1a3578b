@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// Rule (RFC 6265bis §5.7, the cookie prefixes; names compared case-insensitively): a `__Secure-`
/// cookie must be `Secure`; a `__Host-` cookie must be `Secure`, host-only (no `Domain`) and carry a
/// `Path` attribute that gives the path `/` — a default path of `/` without the attribute is not enough; a nameless
/// cookie may not look prefixed. The same rules hold on every way into a jar: `Set-Cookie`
/// (``CookieJar/setCookies(fromSetCookieValues:for:)``, and so every response), ``CookieJar/insert(_:)``
/// and a jar file read by ``CookieJar/init(persistingTo:publicSuffixes:)``.
@Suite("Cookie prefixes (RFC 6265bis §5.7)")
struct CookiePrefixTests {
    /// `Set-Cookie` values received from `https://example.com/` (whose default path is `/`) or from
    /// `https://example.com/dir/page` (default path `/dir`), and whether each is stored.
    static let rows: [(setCookie: String, path: String, stored: Bool)] = [
        ("__Host-a=1; Secure; Path=/", "/", true),
        ("__HOST-a=1; Secure; Path=/", "/", true),
        ("__host-a=1; secure; path=/", "/", true),
        ("__Host-a=1; Secure", "/", false),                     // no Path attribute: a default path of "/" does not count
        ("__Host-a=1; Secure; Path=/", "/dir/page", true),
        ("__Host-a=1; Secure; Path=", "/", true),               // §5.6.5: an empty Path is a Path attribute of the default path
        ("__Host-a=1; Secure; Path=foo", "/", true),            // as is one not starting with "/"
        ("__Host-a=1; Secure; Path=foo", "/dir/page", false),   // …whose default path here is /dir
        ("__Host-a=1; Secure; Path=/x", "/", false),
        ("__Host-a=1; Path=/", "/", false),                     // not Secure
        ("__Host-a=1; Secure; Path=/; Domain=example.com", "/", false),
        ("__Host-a=1; Secure; Path=/x; Path=/", "/", true),     // the last Path wins (§5.6)
        ("__Host-a=1; Secure; Path=/; Path=/x", "/", false),
        ("__Secure-a=1; Secure", "/", true),
        ("__SECURE-a=1; Secure", "/dir/page", true),
        ("__Secure-a=1", "/", false),
        ("__Secure-a=1; Path=/", "/", false),
        ("=__Host-a", "/", false),                              // a nameless cookie that looks prefixed
        ("__Secure-a", "/", false),
        ("__Hostile=1", "/", true),                             // not a prefix
    ]

    @Test(arguments: rows.indices)
    func setCookie(_ index: Int) throws {
        let (value, path, stored) = Self.rows[index]
        let jar = CookieJar()
        let url = try #require(URL(string: "https://example.com" + path))
        jar.setCookies(fromSetCookieValues: [value], for: url)
        #expect(!jar.allCookies.isEmpty == stored, "\(value) from \(path)")
    }

    /// Cookies that a `Set-Cookie` could never have stored, handed to the jar directly.
    static let refused: [StoredCookie] = [
        StoredCookie(name: "__Host-a", value: "1", domain: "example.com", isHostOnly: true, path: "/x", isSecure: true),
        StoredCookie(name: "__Host-a", value: "1", domain: "example.com", isHostOnly: false, path: "/", isSecure: true),
        StoredCookie(name: "__host-a", value: "1", domain: "example.com", isHostOnly: true, path: "/", isSecure: false),
        StoredCookie(name: "__Secure-a", value: "1", domain: "example.com", isSecure: false),
        StoredCookie(name: "", value: "__Secure-a", domain: "example.com", isSecure: true),
    ]

    static let accepted: [StoredCookie] = [
        StoredCookie(name: "__Host-ok", value: "1", domain: "example.com", isHostOnly: true, path: "/", isSecure: true),
        StoredCookie(name: "__Secure-ok", value: "1", domain: "example.com", isHostOnly: false, path: "/app", isSecure: true),
        StoredCookie(name: "plain", value: "1", domain: "example.com"),
    ]

    @Test func insertAppliesThePrefixRules() throws {
        let jar = CookieJar()
        for cookie in Self.refused {
            #expect(throws: NetworkingError.self) { try jar.insert(cookie) }
        }
        for cookie in Self.accepted { try jar.insert(cookie) }
        #expect(Set(jar.allCookies.map(\.name)) == ["__Host-ok", "__Secure-ok", "plain"])
    }

    @Test func aJarFileCannotBringInWhatSetCookieCouldNot() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jar-prefix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let expiry = Date().addingTimeInterval(3600)
        let cookies = (Self.refused + Self.accepted).map { cookie -> StoredCookie in
            var persistent = cookie
            persistent.expires = expiry
            return persistent
        }
        try CookieJarFile.write(cookies, to: file)
        let jar = try CookieJar(persistingTo: file)
        #expect(Set(jar.allCookies.map(\.name)) == ["__Host-ok", "__Secure-ok", "plain"])
    }
}
