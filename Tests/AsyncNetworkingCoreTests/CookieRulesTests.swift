@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// RFC 6265bis parsing, matching and storage rules as tables (pure: no server).
@Suite("Cookie rules (RFC 6265bis)")
struct CookieRulesTests {
    static let epoch = Date(timeIntervalSince1970: 1_700_000_000) // 2023-11-14T22:13:20Z

    /// A jar whose clock is `epoch + offset` seconds, advanced by the test.
    final class Clock: Sendable {
        let offset = SanitizedMutex<TimeInterval>(0)
        var now: Date { CookieRulesTests.epoch.addingTimeInterval(offset.withLock { $0 }) }
        func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    }

    static func jar(_ clock: Clock = Clock(), suffixes: Set<String> = []) -> CookieJar {
        CookieJar(fileURL: nil, publicSuffixes: suffixes, now: { clock.now })
    }

    // MARK: Dates

    @Test("Expires in every date form", arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),      // IMF-fixdate
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),         // RFC 850
        ("Sun Nov  6 08:49:37 1994", 784_111_777),               // asctime
        ("Sun, 06-Nov-1994 08:49:37 GMT", 784_111_777),          // Netscape (four-digit year, dashes)
        ("06 Nov 1994 08:49:37", 784_111_777),                   // no weekday, no zone
        ("Sun, 6 Nov 94 08:49:37 GMT", 784_111_777),             // two-digit year 94 → 1994
        ("Thu, 01 Jan 70 00:00:00 GMT", 0),                      // 70 → 1970
        ("Wed, 21 Oct 2015 07:28:00 GMT", 1_445_412_480),
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),          // a leap day
        ("1 Jan 2030 00:00:00", 1_893_456_000),
    ])
    func dates(text: String, expected: Double) {
        #expect(CookieDateParser.parse(text)?.timeIntervalSince1970 == expected, "\(text)")
    }

    @Test("Invalid Expires dates are refused", arguments: [
        "", "0", "-1", "tomorrow", "Wed, 31 Feb 2015 07:28:00 GMT", "Wed, 21 Oct 1600 07:28:00 GMT",
        "Wed, 21 Oct 2015 25:00:00 GMT", "Wed, 21 Foo 2015 07:28:00 GMT", "Wed, 21 Oct 2015",
    ])
    func invalidDates(text: String) {
        #expect(CookieDateParser.parse(text) == nil, "\(text)")
    }

    // MARK: Parsing

    @Test("Set-Cookie parsing")
    func parsing() throws {
        let plain = try #require(SetCookieParser.parse("SID=31d4d96e407aad42"))
        #expect(plain.name == "SID" && plain.value == "31d4d96e407aad42" && plain.expiry == nil)
        let full = try #require(SetCookieParser.parse(
            " lang = en-US ; Path=/docs; Domain=.Example.COM; Secure; HttpOnly; SameSite=Lax; Max-Age=60; unknown=x"
        ))
        #expect(full.name == "lang" && full.value == "en-US")
        #expect(full.path == "/docs" && full.domain == "example.com")
        #expect(full.secure && full.httpOnly && full.sameSite == .lax && full.expiry == .maxAge(60))
        let nameless = try #require(SetCookieParser.parse("justavalue; Path=/"))
        #expect(nameless.name == "" && nameless.value == "justavalue")
        let quoted = try #require(SetCookieParser.parse("q=\"a b\"; path=relative"))
        #expect(quoted.value == "\"a b\"" && quoted.path == nil, "a Path not starting with / is the default path")
        let emptyValue = try #require(SetCookieParser.parse("e="))
        #expect(emptyValue.name == "e" && emptyValue.value == "")
        #expect(SetCookieParser.parse("=") == nil, "empty name and value")
        #expect(SetCookieParser.parse("a=b\u{01}c") == nil, "a control character ignores the line")
        #expect(SetCookieParser.parse(String(repeating: "x", count: 4097) + "=1") == nil, "longer than 4096")
        #expect(SetCookieParser.parse("a=1; SameSite=bogus")?.sameSite == .unspecified)
        #expect(SetCookieParser.parse("a=1; Domain=")?.domain == nil, "an empty Domain is ignored")
        #expect(SetCookieParser.parse("a=1; Max-Age=1e3")?.expiry == nil, "a malformed Max-Age is ignored")
        #expect(SetCookieParser.parse("a=1; Path=/a; Path=/b")?.path == "/b", "the last attribute wins")
    }

    @Test("Max-Age wins over Expires whatever their order; both capped at 400 days")
    func maxAgePrecedence() throws {
        let now = Self.epoch
        let before = try #require(SetCookieParser.parse("a=1; Max-Age=100; Expires=Wed, 21 Oct 2015 07:28:00 GMT"))
        let after = try #require(SetCookieParser.parse("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Max-Age=100"))
        #expect(before.expiryDate(receivedAt: now) == now.addingTimeInterval(100))
        #expect(after.expiryDate(receivedAt: now) == now.addingTimeInterval(100))
        #expect(SetCookieParser.parse("a=1; Max-Age=0")?.expiryDate(receivedAt: now) == .distantPast)
        #expect(SetCookieParser.parse("a=1; Max-Age=-5")?.expiryDate(receivedAt: now) == .distantPast)
        let far = SetCookieParser.parse("a=1; Max-Age=999999999999")?.expiryDate(receivedAt: now)
        #expect(far == now.addingTimeInterval(400 * 86_400))
        let farDate = SetCookieParser.parse("a=1; Expires=Fri, 01 Jan 2100 00:00:00 GMT")?.expiryDate(receivedAt: now)
        #expect(farDate == now.addingTimeInterval(400 * 86_400))
    }

    @Test("Foundation's combined Set-Cookie splits back into cookies")
    func splitCombined() {
        #expect(SetCookieParser.splitCombined("a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/, b=2, c=3; Secure")
            == ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT; Path=/", "b=2", "c=3; Secure"])
        #expect(SetCookieParser.splitCombined("single=1") == ["single=1"])
    }

    // MARK: Matching

    @Test("domain-match", arguments: [
        ("example.com", "example.com", true), ("www.example.com", "example.com", true),
        ("a.b.example.com", "example.com", true), ("badexample.com", "example.com", false),
        ("example.com", "www.example.com", false), ("127.0.0.1", "127.0.0.1", true),
        ("1.127.0.0.1", "0.0.1", true), ("10.0.0.1", "0.0.1", false), ("::1", "::1", true),
    ])
    func domainMatch(host: String, domain: String, matches: Bool) {
        #expect(CookieRules.domainMatches(host, domain) == matches, "\(host) ~ \(domain)")
    }

    @Test("default path", arguments: [
        ("", "/"), ("/", "/"), ("/a", "/"), ("/a/", "/a"), ("/a/b", "/a"), ("/a/b/c.html", "/a/b"), ("x/y", "/"),
    ])
    func defaultPath(requestPath: String, expected: String) {
        #expect(CookieRules.defaultPath(requestPath) == expected)
    }

    @Test("path-match", arguments: [
        ("/docs", "/docs", true), ("/docs/web", "/docs", true), ("/docs/", "/docs", true),
        ("/docsets", "/docs", false), ("/", "/docs", false), ("/anything", "/", true), ("/a/b", "/a/", true),
    ])
    func pathMatch(requestPath: String, cookiePath: String, matches: Bool) {
        #expect(CookieRules.pathMatches(requestPath, cookiePath) == matches, "\(requestPath) ~ \(cookiePath)")
    }

    @Test("IP literals", arguments: [
        ("127.0.0.1", true), ("::1", true), ("fe80::1", true), ("256.0.0.1", false), ("1.2.3", false), ("example.com", false),
    ])
    func ipLiterals(host: String, isIP: Bool) {
        #expect(CookieRules.isIPLiteral(host) == isIP)
    }

    // MARK: Storage model and retrieval

    /// Each row: a `Set-Cookie` received from a URL; the `Cookie` field then sent to other URLs.
    struct Row: Sendable, CustomStringConvertible {
        var setCookie: String
        var from: String
        var sent: [(url: String, cookie: String?)]
        var description: String { "\(setCookie) from \(from)" }
    }

    static let rows: [Row] = [
        Row(setCookie: "a=1", from: "http://example.com/dir/page", sent: [
            ("http://example.com/dir/other", "a=1"), ("http://example.com/dir", "a=1"),
            ("http://example.com/", nil), ("http://www.example.com/dir/x", nil), // host-only, default path /dir
        ]),
        Row(setCookie: "a=1; Domain=example.com; Path=/", from: "http://www.example.com/", sent: [
            ("http://example.com/", "a=1"), ("http://deep.www.example.com/x", "a=1"), ("http://other.com/", nil),
        ]),
        Row(setCookie: "a=1; Domain=other.com", from: "http://example.com/", sent: [("http://other.com/", nil), ("http://example.com/", nil)]),
        Row(setCookie: "a=1; Domain=www.example.com", from: "http://example.com/", sent: [("http://www.example.com/", nil)]),
        Row(setCookie: "a=1; Domain=com", from: "http://example.com/", sent: [("http://example.com/", nil), ("http://other.com/", nil)]),
        Row(setCookie: "a=1; Domain=co.uk", from: "http://shop.co.uk/", sent: [("http://shop.co.uk/", nil)]),
        Row(setCookie: "a=1; Domain=github.io", from: "http://me.github.io/", sent: [("http://me.github.io/", nil), ("http://you.github.io/", nil)]),
        Row(setCookie: "a=1; Domain=me.github.io", from: "http://me.github.io/", sent: [("http://x.me.github.io/", "a=1")]),
        // A public suffix that is the host itself: a host-only cookie (§5.7 step 9).
        Row(setCookie: "a=1; Domain=localhost; Path=/", from: "http://localhost/", sent: [("http://localhost/", "a=1"), ("http://a.localhost/", nil)]),
        Row(setCookie: "a=1; Domain=0.0.1; Path=/", from: "http://127.0.0.1/", sent: [("http://127.0.0.1/", nil)]),
        Row(setCookie: "a=1; Domain=127.0.0.1; Path=/", from: "http://127.0.0.1/", sent: [("http://127.0.0.1/", "a=1")]),
        Row(setCookie: "a=1; Domain=127.0.0.1; Path=/", from: "http://127.0.0.2/", sent: [("http://127.0.0.1/", nil), ("http://127.0.0.2/", nil)]),
        Row(setCookie: "s=1; Secure; Path=/", from: "https://example.com/", sent: [("https://example.com/", "s=1"), ("http://example.com/", nil)]),
        Row(setCookie: "s=1; Secure; Path=/", from: "http://example.com/", sent: [("https://example.com/", nil)]),
        Row(setCookie: "n=1; SameSite=None; Path=/", from: "https://example.com/", sent: [("https://example.com/", nil)]),
        Row(setCookie: "n=1; SameSite=None; Secure; Path=/", from: "https://example.com/", sent: [("https://example.com/", "n=1")]),
        Row(setCookie: "l=1; SameSite=Strict; HttpOnly; Path=/", from: "http://example.com/", sent: [("http://example.com/", "l=1")]),
        Row(setCookie: "__Secure-a=1; Path=/", from: "https://example.com/", sent: [("https://example.com/", nil)]),
        Row(setCookie: "__Secure-a=1; Secure; Path=/", from: "https://example.com/", sent: [("https://example.com/", "__Secure-a=1")]),
        Row(setCookie: "__Host-a=1; Secure; Path=/; Domain=example.com", from: "https://example.com/", sent: [("https://example.com/", nil)]),
        Row(setCookie: "__Host-a=1; Secure; Path=/", from: "https://example.com/", sent: [("https://example.com/", "__Host-a=1")]),
        Row(setCookie: "e=1; Max-Age=0", from: "http://example.com/", sent: [("http://example.com/", nil)]),
        Row(setCookie: "e=1; Expires=Thu, 01 Jan 1970 00:00:01 GMT", from: "http://example.com/", sent: [("http://example.com/", nil)]),
        Row(setCookie: "novalue", from: "http://example.com/", sent: [("http://example.com/", "novalue")]),
        Row(setCookie: "a=1; Path=/x", from: "ftp://example.com/", sent: [("http://example.com/x", nil)]),
    ]

    @Test("storage and retrieval", arguments: rows)
    func storageAndRetrieval(row: Row) throws {
        let jar = Self.jar()
        jar.setCookies(fromSetCookieValues: [row.setCookie], for: try #require(URL(string: row.from)))
        for (url, expected) in row.sent {
            #expect(jar.cookieHeader(for: try #require(URL(string: url))) == expected, "\(row) → \(url)")
        }
    }

    @Test("a custom public suffix refuses its domain cookies")
    func customSuffix() throws {
        let jar = Self.jar(suffixes: ["corp.example"])
        jar.setCookies(fromSetCookieValues: ["a=1; Domain=corp.example"], for: URL(string: "http://app.corp.example/")!)
        #expect(jar.allCookies.isEmpty)
    }

    @Test("order: longest path first, then oldest first; replacement keeps the creation time")
    func ordering() throws {
        let clock = Clock()
        let jar = Self.jar(clock)
        let url = try #require(URL(string: "http://example.com/a/b/c"))
        jar.setCookies(fromSetCookieValues: ["first=1; Path=/"], for: url)
        clock.advance(1)
        jar.setCookies(fromSetCookieValues: ["deep=1; Path=/a/b"], for: url)
        clock.advance(1)
        jar.setCookies(fromSetCookieValues: ["second=1; Path=/"], for: url)
        clock.advance(1)
        jar.setCookies(fromSetCookieValues: ["mid=1; Path=/a"], for: url)
        clock.advance(1)
        jar.setCookies(fromSetCookieValues: ["first=2; Path=/"], for: url) // replaces, stays first
        #expect(jar.cookieHeader(for: url) == "deep=1; mid=1; first=2; second=1")
    }

    @Test("expiry: Max-Age counts from storage; an expired Set-Cookie deletes the cookie")
    func expiry() throws {
        let clock = Clock()
        let jar = Self.jar(clock)
        let url = try #require(URL(string: "http://example.com/"))
        jar.setCookies(fromSetCookieValues: ["short=1; Max-Age=10", "session=1", "gone=1"], for: url)
        #expect(jar.cookieHeader(for: url) == "short=1; session=1; gone=1")
        jar.setCookies(fromSetCookieValues: ["gone=x; Max-Age=0"], for: url)
        #expect(jar.cookieHeader(for: url) == "short=1; session=1")
        clock.advance(11)
        #expect(jar.cookieHeader(for: url) == "session=1")
        jar.removeSessionCookies()
        #expect(jar.cookieHeader(for: url) == nil)
    }

    @Test("an http origin cannot shadow a Secure cookie")
    func noShadowingOfSecure() throws {
        let jar = Self.jar()
        jar.setCookies(fromSetCookieValues: ["id=secure; Secure; Path=/"], for: URL(string: "https://example.com/")!)
        #expect(jar.setCookies(fromSetCookieValues: ["id=plain; Path=/"], for: URL(string: "http://example.com/")!) == 0)
        #expect(jar.cookieHeader(for: URL(string: "https://example.com/")!) == "id=secure")
    }

    @Test("at most 50 cookies per domain: the least recently used go")
    func perDomainLimit() throws {
        let clock = Clock()
        let jar = Self.jar(clock)
        let url = try #require(URL(string: "http://example.com/"))
        for index in 0..<60 {
            jar.setCookies(fromSetCookieValues: ["c\(index)=1"], for: url)
            clock.advance(1)
        }
        let names = Set(jar.allCookies.map(\.name))
        #expect(names.count == CookieJar.maximumCookiesPerDomain)
        #expect(!names.contains("c0") && names.contains("c59"))
    }

    @Test("persistence: atomic file, mode 0600, persistent cookies only, reloaded")
    func persistence() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = try CookieJar(persistingTo: file)
        let url = try #require(URL(string: "https://example.com/app/page"))
        jar.setCookies(fromSetCookieValues: [
            "keep=1; Max-Age=3600; Secure; HttpOnly; SameSite=Strict", "session=1", "wide=2; Domain=example.com; Path=/; Max-Age=60",
        ], for: url)
        try jar.save()
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cookies.json"], "no temporary file left")
        let reloaded = try CookieJar(persistingTo: file)
        #expect(reloaded.cookieHeader(for: url) == "keep=1; wide=2")
        let keep = try #require(reloaded.allCookies.first { $0.name == "keep" })
        #expect(keep.isSecure && keep.isHTTPOnly && keep.sameSite == .strict && keep.isHostOnly && keep.path == "/app")
        try Data("not json".utf8).write(to: file)
        #expect(throws: (any Error).self) { try CookieJar(persistingTo: file) }
    }
}
