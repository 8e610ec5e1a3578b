import Foundation

/// RFC 6265bis matching: canonical hosts, domain-match, default path and path-match (pure).
enum CookieRules {
    /// Expiry dates are capped at 400 days from storage (RFC 6265bis §5.6.1).
    static let maximumLifetime: TimeInterval = 400 * 86_400

    /// A request URL's parts that cookies depend on.
    struct Target: Sendable {
        /// Lowercased, without IPv6 brackets or a trailing dot.
        var host: String
        /// The percent-encoded path, `/` when empty.
        var path: String
        /// `https` (cookies with `Secure` are set and sent over https only).
        var isSecure: Bool

        /// `nil` for a URL without host or not http(s).
        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
                  let host = url.host, !host.isEmpty else { return nil }
            self.host = CookieRules.canonicalHost(host)
            let encodedPath = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
            self.path = encodedPath.isEmpty ? "/" : encodedPath
            self.isSecure = scheme == "https"
        }
    }

    /// `host` lowercased, without IPv6 brackets or one trailing dot.
    static func canonicalHost(_ host: String) -> String {
        var host = Substring(host.lowercased())
        if host.first == "[", host.last == "]" { host = host.dropFirst().dropLast() }
        if host.last == ".", host.count > 1 { host = host.dropLast() }
        return String(host)
    }

    /// Whether `host` is an IPv4 or IPv6 literal (which only ever domain-matches itself).
    static func isIPLiteral(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && (Int(part) ?? 256) <= 255
        }
    }

    /// §5.1.3: `host` equals `domain`, or ends with `.domain` and is a host name (not an IP).
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix(domain) && host.utf8.count > domain.utf8.count
            && host.utf8[host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)] == UInt8(ascii: ".")
            && !isIPLiteral(host)
    }

    /// §5.1.4: the directory of the request path (`/a/b/c` → `/a/b`; `/a` and `/` → `/`).
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.first == "/", let lastSlash = requestPath.lastIndex(of: "/"),
              lastSlash != requestPath.startIndex else { return "/" }
        return String(requestPath[..<lastSlash])
    }

    /// §5.1.4: the cookie path is the request path, or a prefix of it ending at a `/`.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.last == "/" { return true }
        return requestPath.utf8[requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)] == UInt8(ascii: "/")
    }

    /// §5.8.3: whether `cookie` goes with a request to `target` at `now` (SameSite is not a
    /// criterion here: see ``SameSitePolicy``).
    static func sends(_ cookie: StoredCookie, to target: Target, at now: Date) -> Bool {
        guard !cookie.isExpired(at: now), !cookie.isSecure || target.isSecure else { return false }
        let domainOK = cookie.isHostOnly ? target.host == cookie.domain : domainMatches(target.host, cookie.domain)
        return domainOK && pathMatches(target.path, cookie.path)
    }

    /// §5.8.3 step 2: longer paths first; equal paths, earlier creation first.
    static func sendingOrder(_ lhs: StoredCookie, _ rhs: StoredCookie) -> Bool {
        if lhs.path.utf8.count != rhs.path.utf8.count { return lhs.path.utf8.count > rhs.path.utf8.count }
        return lhs.created < rhs.created
    }
}
