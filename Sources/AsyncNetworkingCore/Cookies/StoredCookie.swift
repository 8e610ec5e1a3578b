import Foundation

/// A cookie's `SameSite` attribute (RFC 6265bis §4.1.2.7), kept as received.
///
/// A ``CookieJar`` sends every cookie whatever its `SameSite`: a client library makes only
/// requests of its own, with no page and so no "cross-site" request (as curl). The value is kept,
/// persisted and shown for code that applies browser rules itself. One rule is applied at storage:
/// `SameSite=None` without `Secure` is refused (§5.7 step 17).
public enum SameSitePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// `SameSite=Strict`.
    case strict
    /// `SameSite=Lax`.
    case lax
    /// `SameSite=None` (stored only with `Secure`).
    case none
    /// No `SameSite`, or an unknown value.
    case unspecified
}

/// A cookie as a ``CookieJar`` stores it (the cookie record of RFC 6265bis §5.7).
public struct StoredCookie: Sendable, Hashable, Codable {
    /// The name (may be empty: a `Set-Cookie: value` without `=`).
    public var name: String
    /// The value, as received (not decoded).
    public var value: String
    /// The domain: the request's host for a host-only cookie, else the `Domain` attribute
    /// (lowercased, no leading dot).
    public var domain: String
    /// `true` when the server gave no `Domain`: the cookie goes to exactly ``domain``, never to its
    /// subdomains.
    public var isHostOnly: Bool
    /// The path: the `Path` attribute, or the default path of the request that set it.
    public var path: String
    /// Sent over `https` only, and set only from `https`.
    public var isSecure: Bool
    /// `HttpOnly`: kept (every use of a jar is an HTTP use).
    public var isHTTPOnly: Bool
    /// `SameSite`, kept as received (see ``SameSitePolicy``).
    public var sameSite: SameSitePolicy
    /// When it expires; `nil` for a session cookie (kept for the jar's lifetime, never persisted).
    public var expires: Date?
    /// When it was first stored (a replacement keeps the original time; orders ``CookieJar/cookies(for:)``).
    public var created: Date
    /// When it was last sent (or stored).
    public var lastAccessed: Date

    /// Creates a cookie record. `created` and `lastAccessed` default to now.
    public init(
        name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/",
        isSecure: Bool = false, isHTTPOnly: Bool = false, sameSite: SameSitePolicy = .unspecified,
        expires: Date? = nil, created: Date = Date(), lastAccessed: Date? = nil
    ) {
        self.name = name
        self.value = value
        self.domain = domain.lowercased()
        self.isHostOnly = isHostOnly
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.expires = expires
        self.created = created
        self.lastAccessed = lastAccessed ?? created
    }

    /// Whether it outlives the jar (it has an expiry date).
    public var isPersistent: Bool { expires != nil }

    /// Whether it has expired at `date`.
    public func isExpired(at date: Date) -> Bool { expires.map { $0 <= date } ?? false }

    /// `name=value`, or `value` alone for a nameless cookie: one entry of a `Cookie` field.
    public var pair: String { name.isEmpty ? value : "\(name)=\(value)" }

    /// What identifies a cookie in a jar: a new one with the same key replaces it (§5.7 step 22).
    struct Key: Hashable {
        var name: String
        var domain: String
        var isHostOnly: Bool
        var path: String
    }

    var key: Key { Key(name: name, domain: domain, isHostOnly: isHostOnly, path: path) }
}
