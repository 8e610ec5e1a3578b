import Foundation

/// Cookie storage for a ``SessionManager`` on both transports (RFC 6265bis): `Set-Cookie` of
/// every response — redirect responses included, stored before the redirect is followed — and a
/// `Cookie` field on every request by domain, path, `Secure` and expiry.
///
/// Off by default: a manager keeps no cookies unless created with one
/// (``SessionManager/init(configuration:maxConcurrentTransfers:transport:securityPolicy:cookieJar:)``).
/// Managers given the same jar share its cookies; give each its own jar to keep them apart.
///
/// ```swift
/// let jar = try CookieJar(persistingTo: URL(fileURLWithPath: "cookies.json"))
/// let manager = SessionManager(cookieJar: jar)
/// _ = try await manager.data(from: loginURL)      // Set-Cookie stored
/// _ = try await manager.data(from: profileURL)    // Cookie sent
/// try jar.save()                                   // persistent cookies to the file (mode 0600)
/// ```
///
/// The rules: a cookie without `Domain` is host-only (sent to exactly that host); a `Domain` that
/// does not domain-match the request's host, or that is a public suffix (a small built-in list —
/// see ``init(publicSuffixes:)``, not the full Public Suffix List), refuses the cookie; an IP
/// address only matches itself; `Path` defaults to the directory of the request path; `Max-Age`
/// wins over `Expires` (every HTTP date form and the lenient cookie form are read), and lifetimes
/// are capped at 400 days; `Secure` cookies are set and sent over `https` only; `SameSite` and
/// `HttpOnly` are kept (see ``SameSitePolicy``). Cookies go out longest path first, then oldest
/// first. At most ``maximumCookiesPerDomain`` per domain and ``maximumCookies`` in all: the least
/// recently used go first.
///
/// Thread safety: a `final class` whose state is behind a lock; every method is synchronous and
/// short (no suspension, no I/O except ``save()`` and ``init(persistingTo:publicSuffixes:)``).
public final class CookieJar: Sendable {
    /// Cookies kept per domain at most. 50.
    public static let maximumCookiesPerDomain = 50
    /// Cookies kept at most. 3000.
    public static let maximumCookies = 3000

    /// Where ``save()`` writes; `nil` for a jar without persistence.
    public let fileURL: URL?
    private let publicSuffixes: Set<String>
    private let state = SanitizedMutex(Contents())

    /// The cookies, and the last creation time given (each new cookie gets a later one, so cookies
    /// stored together — several `Set-Cookie` of one response — keep their order).
    private struct Contents {
        var cookies: [StoredCookie.Key: StoredCookie] = [:]
        var lastCreation = Date.distantPast
    }
    /// The clock (tests replace it).
    let now: @Sendable () -> Date

    /// Creates an empty jar kept in memory only.
    ///
    /// - Parameter publicSuffixes: suffixes under which no domain cookie may be set, added to the
    ///   built-in list (every single-label domain, and common multi-label ones such as `co.uk`,
    ///   `com.au` and `github.io`). Default: none added. Lowercase, without a leading dot.
    public convenience init(publicSuffixes: Set<String> = []) {
        self.init(fileURL: nil, publicSuffixes: publicSuffixes, now: { Date() })
    }

    /// Creates a jar that loads the persistent cookies saved at `fileURL` (when the file exists)
    /// and writes them back there on ``save()``.
    ///
    /// - Throws: when the file exists but cannot be read or is not a jar file (rather than start
    ///   empty and overwrite it on the next save), or holds a cookie no `Set-Cookie` could have set
    ///   (as ``insert(_:)`` refuses). Expired cookies in the file are dropped, and so are cookies
    ///   that break a cookie prefix rule.
    public convenience init(persistingTo fileURL: URL, publicSuffixes: Set<String> = []) throws {
        self.init(fileURL: fileURL, publicSuffixes: publicSuffixes, now: { Date() })
        let loaded = try CookieJarFile.load(from: fileURL)
        let date = now()
        state.withLock { contents in
            // A file cannot bring in a cookie a Set-Cookie could not have stored (CookiePrefixRules).
            for cookie in loaded where !cookie.isExpired(at: date) && CookiePrefixRules.allow(cookie) {
                contents.cookies[cookie.key] = cookie
                contents.lastCreation = max(contents.lastCreation, cookie.created)
            }
        }
    }

    init(fileURL: URL?, publicSuffixes: Set<String>, now: @escaping @Sendable () -> Date) {
        self.fileURL = fileURL
        self.publicSuffixes = Set(publicSuffixes.map { $0.lowercased() })
        self.now = now
    }

    // MARK: Reading

    /// Every cookie not expired, in no particular order.
    public var allCookies: [StoredCookie] {
        let date = now()
        return state.withLock { Array($0.cookies.values) }.filter { !$0.isExpired(at: date) }
    }

    /// The cookies a request to `url` would carry, in sending order (longest path first, then
    /// oldest). Marks them as used. Empty for a URL that is not http(s).
    public func cookies(for url: URL) -> [StoredCookie] {
        guard let target = CookieRules.Target(url) else { return [] }
        let date = now()
        return state.withLock { contents in
            var matching: [StoredCookie] = []
            for (key, cookie) in contents.cookies {
                if cookie.isExpired(at: date) {
                    contents.cookies[key] = nil
                } else if CookieRules.sends(cookie, to: target, at: date) {
                    contents.cookies[key]?.lastAccessed = date
                    matching.append(cookie)
                }
            }
            return matching.sorted(by: CookieRules.sendingOrder)
        }
    }

    /// The `Cookie` field value for a request to `url` (`a=1; b=2`), or `nil` when no cookie matches.
    public func cookieHeader(for url: URL) -> String? {
        let cookies = cookies(for: url)
        return cookies.isEmpty ? nil : cookies.map(\.pair).joined(separator: "; ")
    }

    // MARK: Writing

    /// Stores the cookies of `Set-Cookie` field values received in a response to `url` (one value
    /// per field, as sent), under RFC 6265bis's storage model: invalid or refused cookies are
    /// skipped, an expired one deletes the cookie it replaces.
    /// - Returns: how many values were accepted (stored or deleting).
    @discardableResult
    public func setCookies(fromSetCookieValues values: [String], for url: URL) -> Int {
        guard let target = CookieRules.Target(url) else { return 0 }
        var accepted = 0
        for value in values {
            guard let parsed = SetCookieParser.parse(value) else { continue }
            if case .success = store(parsed, from: target) { accepted += 1 }
        }
        return accepted
    }

    /// Stores one parsed cookie (the storage model, then replacement and eviction).
    func store(_ parsed: ParsedSetCookie, from target: CookieRules.Target) -> Result<StoredCookie, CookieStorageModel.Refusal> {
        let date = now()
        return state.withLock { contents in
            let result = CookieStorageModel.cookie(
                from: parsed, target: target, at: date, publicSuffixes: publicSuffixes, existing: contents.cookies.values
            )
            guard case .success(var cookie) = result else { return result }
            let key = cookie.key
            if cookie.isExpired(at: date) {
                contents.cookies[key] = nil
                return result
            }
            if let old = contents.cookies[key] {
                cookie.created = old.created
            } else {
                cookie.created = max(date, contents.lastCreation.addingTimeInterval(1e-6))
                contents.lastCreation = cookie.created
            }
            contents.cookies[key] = cookie
            Self.evict(from: &contents.cookies, domain: cookie.domain, at: date)
            return .success(cookie)
        }
    }

    /// Adds or replaces `cookie` as is — no storage rules apply (`Secure` from `https`,
    /// `SameSite=None`): it is yours — provided it could have come from a valid `Set-Cookie`.
    ///
    /// - Throws: ``NetworkingError/Kind/invalidCookie`` when it could not (a control character, a
    ///   `;`, an `=` in its name, surrounding spaces, an empty name and value, a name and value over
    ///   4096 bytes, a domain or path no `Set-Cookie` can set), or when it breaks a cookie prefix
    ///   rule (RFC 6265bis §5.7: a `__Secure-` cookie is `Secure`; a `__Host-` cookie is `Secure`,
    ///   host-only, with the path `/`; a nameless cookie's value does not start like a prefixed
    ///   name); nothing is stored. Such a value would break the `Cookie` field of every request it
    ///   is sent with, or claim a guarantee the prefix promises servers.
    public func insert(_ cookie: StoredCookie) throws(NetworkingError) {
        if let invalidity = cookie.invalidity {
            throw NetworkingError(.invalidCookie, "\(invalidity); it was not stored")
        }
        guard CookiePrefixRules.allow(cookie) else {
            throw NetworkingError(.invalidCookie, "the cookie \(cookie.name.debugDescription) breaks its name prefix's rule (RFC 6265bis §5.7); it was not stored")
        }
        state.withLock { $0.cookies[cookie.key] = cookie }
    }

    /// Removes every cookie named `name` for `domain` (any path), or every cookie for `domain`
    /// when `name` is `nil`.
    public func removeCookies(named name: String? = nil, domain: String) {
        let domain = domain.lowercased()
        state.withLock { contents in
            contents.cookies = contents.cookies.filter { $0.value.domain != domain || (name != nil && $0.value.name != name) }
        }
    }

    /// Removes every cookie.
    public func removeAll() {
        state.withLock { $0.cookies.removeAll() }
    }

    /// Removes the session cookies (those without an expiry), as ending a browser session does.
    public func removeSessionCookies() {
        state.withLock { contents in contents.cookies = contents.cookies.filter { $0.value.isPersistent } }
    }

    // MARK: Persistence

    /// Writes the persistent cookies not yet expired to ``fileURL`` (session cookies are never
    /// written): a new file in the same directory with mode 0600, flushed, then renamed over the
    /// old one, so a reader sees the old file or the new one, never a part. Does nothing for a
    /// jar without a file. Synchronous file I/O: call it off latency-sensitive threads.
    ///
    /// - Throws: the file system's error when the file cannot be written or renamed.
    public func save() throws {
        guard let fileURL else { return }
        let date = now()
        let persistent = state.withLock { Array($0.cookies.values) }.filter { $0.isPersistent && !$0.isExpired(at: date) }
        try CookieJarFile.write(persistent, to: fileURL)
    }

    /// Drops expired cookies, then the least recently used while `domain` has more than
    /// ``maximumCookiesPerDomain`` or the jar more than ``maximumCookies``.
    private static func evict(from cookies: inout [StoredCookie.Key: StoredCookie], domain: String, at date: Date) {
        let inDomain = cookies.values.filter { $0.domain == domain }
        if inDomain.count > maximumCookiesPerDomain {
            for cookie in inDomain.sorted(by: { $0.lastAccessed < $1.lastAccessed }).prefix(inDomain.count - maximumCookiesPerDomain) {
                cookies[cookie.key] = nil
            }
        }
        guard cookies.count > maximumCookies else { return }
        cookies = cookies.filter { !$0.value.isExpired(at: date) }
        if cookies.count > maximumCookies {
            for cookie in cookies.values.sorted(by: { $0.lastAccessed < $1.lastAccessed }).prefix(cookies.count - maximumCookies) {
                cookies[cookie.key] = nil
            }
        }
    }
}
