import Foundation

/// The directives of a `Cache-Control` header field (RFC 9111 §5.2), parsed. Pure.
///
/// Request and response directives share one type; each property says where it means something.
/// Unknown directives are ignored (§5.2.3). A directive given twice with different values is
/// invalid: for `max-age` and `s-maxage` that reads as `0` (stale at once, as §4.2.1 encourages),
/// for the request's `max-stale` and `min-fresh` as "not given".
struct CacheControl: Sendable, Hashable {
    /// `max-age=N`: the response is fresh for N seconds (response); the client accepts a response
    /// at most N seconds old (request).
    var maxAge: Int?
    /// `s-maxage=N` (response): for shared caches only; its presence still permits storing a
    /// response to a request with `Authorization` (§3.5).
    var sharedMaxAge: Int?
    /// `no-store`: neither the request nor the response may be stored.
    var noStore = false
    /// `no-cache` (with or without field names: both read as unqualified, the conservative choice
    /// §5.2.2.4 allows): a stored response must be validated before each use.
    var noCache = false
    /// `private` (response): fine for this private cache.
    var isPrivate = false
    /// `public` (response): storable even for a request with `Authorization`.
    var isPublic = false
    /// `must-revalidate` (response): never served stale, whatever the request allows.
    var mustRevalidate = false
    /// `proxy-revalidate` (response): for shared caches; permits storing with `Authorization` no more
    /// than `public` does not — kept for completeness.
    var proxyRevalidate = false
    /// `immutable` (response, RFC 8246): noted, not acted on.
    var immutable = false
    /// `max-stale[=N]` (request): a stale response is acceptable, up to N seconds past its lifetime
    /// (`Int.max` when no value is given).
    var maxStale: Int?
    /// `min-fresh=N` (request): the response must stay fresh for N more seconds.
    var minFresh: Int?
    /// `only-if-cached` (request): answer from storage or fail.
    var onlyIfCached = false

    /// No directives.
    init() {}

    /// Parses every value of the field (several header lines may already be joined with `,`).
    /// `nil` or empty gives no directives.
    init(_ fieldValue: String?) {
        guard let fieldValue else { return }
        var seen: [String: String?] = [:]
        for (name, value) in Self.directives(fieldValue) {
            if let previous = seen[name], previous != value {
                invalidate(name)
                continue
            }
            seen[name] = value
            apply(name, value)
        }
    }

    /// The request's directives: `Cache-Control`, or `Pragma: no-cache` when there is no
    /// `Cache-Control` (RFC 9111 §5.4 keeps `Pragma` for HTTP/1.0 clients).
    init(request headers: HeaderFields) {
        if let field = headers["Cache-Control"] {
            self.init(field)
        } else {
            self.init()
            if let pragma = headers["Pragma"], Self.directives(pragma).contains(where: { $0.0 == "no-cache" }) {
                noCache = true
            }
        }
    }

    private mutating func apply(_ name: String, _ value: String?) {
        switch name {
        case "max-age": maxAge = Self.seconds(value) ?? 0
        case "s-maxage": sharedMaxAge = Self.seconds(value) ?? 0
        case "no-store": noStore = true
        case "no-cache": noCache = true
        case "private": isPrivate = true
        case "public": isPublic = true
        case "must-revalidate": mustRevalidate = true
        case "proxy-revalidate": proxyRevalidate = true
        case "immutable": immutable = true
        case "max-stale": maxStale = value == nil ? Int.max : Self.seconds(value)
        case "min-fresh": minFresh = Self.seconds(value)
        case "only-if-cached": onlyIfCached = true
        default: break
        }
    }

    private mutating func invalidate(_ name: String) {
        switch name {
        case "max-age": maxAge = 0
        case "s-maxage": sharedMaxAge = 0
        case "max-stale": maxStale = nil
        case "min-fresh": minFresh = nil
        default: break
        }
    }

    /// A delta-seconds value (§1.2.2): digits only; larger than 2^31 saturates to 2^31.
    static func seconds(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text).map { min($0, 2_147_483_648) } ?? 2_147_483_648
    }

    /// Splits a field value into lower-cased directive names and their values (quotes removed),
    /// honouring commas inside quoted strings.
    static func directives(_ field: String) -> [(String, String?)] {
        HeaderField.split(field, at: ",").map { item -> (String, String?) in
            guard let equals = item.firstIndex(of: "=") else { return (item.lowercased(), nil) }
            let name = item[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = item[item.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast()).replacingOccurrences(of: "\\", with: "")
            }
            return (name, value)
        }
    }
}
