@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// The rule: a ``CookieJar`` holds only cookies a valid `Set-Cookie` could have produced (RFC
/// 6265bis §5.6): ``CookieJar/insert(_:)`` refuses anything else with
/// ``NetworkingError/Kind/invalidCookie``, and a jar file holding such a record is refused whole.
/// Before, `insert` stored a value holding `\r\nX-Injected: yes` as is, and a WebSocket handshake
/// wrote it into its `Cookie` line.
@Suite("A cookie jar holds only what a Set-Cookie could set")
struct CookieJarInsertRulesTests {
    static func cookie(_ name: String, _ value: String, domain: String = "example.com", path: String = "/") -> StoredCookie {
        var cookie = StoredCookie(name: name, value: value, domain: domain, path: path)
        cookie.domain = domain // as given: the initializer lowercases
        return cookie
    }

    @Test(arguments: [
        ("s", "a\r\nX-Injected: yes"), ("s", "a\nb"), ("s", "a\rb"), ("s", "a\u{0}b"), ("s", "a\u{0B}b"), ("s", "a\u{7F}b"),
        ("s", "a;b"), ("a=b", "v"), ("a;b", "v"), (" s", "v"), ("s", "v "), ("s", "\tv"), ("", ""), ("", "a=b"),
        ("s", String(repeating: "x", count: 4096)), ("s\r\nX-Injected", "v"),
    ])
    func insertRefusesANameOrValueNoSetCookieCouldSet(name: String, value: String) throws {
        let jar = CookieJar()
        let error = #expect(throws: NetworkingError.self) { try jar.insert(Self.cookie(name, value)) }
        #expect(error?.kind == .invalidCookie)
        #expect(jar.allCookies.isEmpty)
        if value.count > 2 { #expect(error.map { !"\($0)".contains(value) } ?? false, "the value is never quoted") }
    }

    @Test(arguments: [
        ("", "/"), (".example.com", "/"), ("Example.com", "/"), ("exa mple.com", "/"), ("a;b.com", "/"), ("a\r\nb.com", "/"),
        ("example.com", ""), ("example.com", "relative"), ("example.com", "/a;b"), ("example.com", "/a\r\nb"),
    ])
    func insertRefusesADomainOrPathNoSetCookieCouldSet(domain: String, path: String) throws {
        let jar = CookieJar()
        let error = #expect(throws: NetworkingError.self) { try jar.insert(Self.cookie("s", "v", domain: domain, path: path)) }
        #expect(error?.kind == .invalidCookie)
        #expect(jar.allCookies.isEmpty)
    }

    /// What a `Set-Cookie` can set, `insert` takes, and the jar sends it as the same line would.
    @Test(arguments: [("s", "v"), ("", "nameless"), ("s", "a=b"), ("s", "\"quoted\""), ("s", "é✓"), ("s", "a\tb"), ("s", "a b"), ("s", "")])
    func insertKeepsWhatASetCookieCouldSet(name: String, value: String) throws {
        let url = URL(string: "http://example.com/")!
        let inserted = CookieJar()
        try inserted.insert(Self.cookie(name, value))
        let received = CookieJar()
        #expect(received.setCookies(fromSetCookieValues: [name.isEmpty ? value : "\(name)=\(value)"], for: url) == 1)
        #expect(inserted.cookieHeader(for: url) == received.cookieHeader(for: url))
        #expect(inserted.cookieHeader(for: url) != nil)
    }

    /// A jar file edited to hold such a value is refused whole, as a file of an unknown format is
    /// (rather than loaded, or emptied and overwritten on the next save).
    @Test func aJarFileHoldingAnInjectedValueIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("an-jar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        var good = Self.cookie("good", "1")
        good.expires = Date().addingTimeInterval(3600)
        var bad = Self.cookie("session", "a\r\nX-Injected: yes")
        bad.expires = good.expires
        try CookieJarFile.write([good, bad], to: file)
        #expect(throws: (any Error).self) { _ = try CookieJar(persistingTo: file) }
        try CookieJarFile.write([good], to: file)
        let loaded = try CookieJar(persistingTo: file)
        #expect(loaded.allCookies.map(\.name) == ["good"])
    }
}
