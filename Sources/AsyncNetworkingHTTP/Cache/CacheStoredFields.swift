import Foundation

/// Which response header fields the cache keeps (RFC 9111 §3.1, §3.2). Pure.
///
/// **Rule:** a stored response never replays a field that belongs to the one response it came
/// with or to the connection or proxy it came through. Removed when a response is stored, when a
/// `304` is merged into a stored one, and again when a stored response is handed out (so entries
/// written by an earlier version never replay them either):
/// - `Set-Cookie`, `Set-Cookie2`: a cookie is set once, by the response that carries it; replaying
///   it would set it again for every later request, and for whoever shares the cache.
/// - Hop-by-hop fields (RFC 9110 §7.6.1): `Connection` and every field it names, `Keep-Alive`,
///   `Proxy-Connection`, `TE`, `Transfer-Encoding`, `Upgrade`.
/// - Proxy credentials and challenges (RFC 9111 §3.1): `Proxy-Authenticate`,
///   `Proxy-Authentication-Info`, `Proxy-Authorization`.
enum CacheStoredFields {
    /// The fields never stored, lower-cased.
    static let excluded: Set<String> = [
        "set-cookie", "set-cookie2",
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// Whether `name` (any case) may be stored, given the lower-cased names the message's
    /// `Connection` field lists.
    static func isStored(_ name: String, connectionNamed: Set<String>) -> Bool {
        let lower = name.lowercased()
        return !excluded.contains(lower) && !connectionNamed.contains(lower)
    }

    /// `headers` without the fields the cache never stores.
    static func storable(_ headers: HeaderFields) -> HeaderFields {
        let connectionNamed = Set(headers.tokens("Connection"))
        var kept = HeaderFields()
        for (name, value) in headers.dictionary where isStored(name, connectionNamed: connectionNamed) {
            kept[name] = value
        }
        return kept
    }
}
