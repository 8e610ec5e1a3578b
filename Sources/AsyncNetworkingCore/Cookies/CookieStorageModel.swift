import Foundation

/// The storage model of RFC 6265bis §5.7: whether a parsed `Set-Cookie` received from a request
/// becomes a cookie, and which (pure: the jar's existing cookies are passed in).
enum CookieStorageModel {
    /// Why a cookie was not stored (for tests and diagnostics).
    enum Refusal: Error, Sendable, Equatable {
        case notHTTP
        case publicSuffix
        case domainMismatch
        case secureFromInsecureOrigin
        case sameSiteNoneWithoutSecure
        case prefixRules
        case wouldOverwriteSecure
    }

    /// The cookie to store for `parsed` received from `target` at `now`, or why not.
    /// `existing` is consulted for the rule that an insecure origin may not shadow a `Secure`
    /// cookie (§5.7 step 20). An already-expired result means "delete the cookie with this key".
    static func cookie(
        from parsed: ParsedSetCookie, target: CookieRules.Target, at now: Date,
        publicSuffixes: Set<String>, existing: some Sequence<StoredCookie>
    ) -> Result<StoredCookie, Refusal> {
        let host = target.host
        var domain = parsed.domain ?? ""
        // A public suffix as Domain: a host-only cookie when it is the host itself, else refused.
        if !domain.isEmpty, PublicSuffixes.isPublicSuffix(domain, extra: publicSuffixes) {
            guard domain == host else { return .failure(.publicSuffix) }
            domain = ""
        }
        let isHostOnly: Bool
        if domain.isEmpty {
            isHostOnly = true
            domain = host
        } else {
            // An IP literal only domain-matches itself (no domain cookie for 127.0.0.1 from 127.0.0.2).
            guard CookieRules.domainMatches(host, domain) else { return .failure(.domainMismatch) }
            isHostOnly = false
        }
        let path = parsed.path ?? CookieRules.defaultPath(target.path)
        if parsed.secure, !target.isSecure { return .failure(.secureFromInsecureOrigin) }
        if parsed.sameSite == .none, !parsed.secure { return .failure(.sameSiteNoneWithoutSecure) }
        let prefixOK = CookiePrefixRules.allow(
            name: parsed.name, value: parsed.value, isSecure: parsed.secure, isHostOnly: isHostOnly,
            hasRootPath: parsed.hasPathAttribute && path == "/"
        )
        if !prefixOK { return .failure(.prefixRules) }
        if !target.isSecure, !parsed.secure {
            let shadows = existing.contains { old in
                old.isSecure && old.name == parsed.name
                    && (CookieRules.domainMatches(domain, old.domain) || CookieRules.domainMatches(old.domain, domain))
                    && CookieRules.pathMatches(path, old.path)
            }
            if shadows { return .failure(.wouldOverwriteSecure) }
        }
        return .success(StoredCookie(
            name: parsed.name, value: parsed.value, domain: domain, isHostOnly: isHostOnly, path: path,
            isSecure: parsed.secure, isHTTPOnly: parsed.httpOnly, sameSite: parsed.sameSite,
            expires: parsed.expiryDate(receivedAt: now), created: now
        ))
    }
}

/// The cookie prefixes of RFC 6265bis §5.7 (names compared case-insensitively), applied on every
/// way into a ``CookieJar``: `Set-Cookie` (``CookieStorageModel``), ``CookieJar/insert(_:)`` and a
/// jar file being loaded.
///
/// - `__Secure-`: the cookie is `Secure`.
/// - `__Host-`: the cookie is `Secure`, host-only (no `Domain` attribute), and its `Path` attribute
///   gives the path `/` — a `Set-Cookie` without a `Path` attribute is refused even where the
///   default path is `/`; a stored cookie record must have the path `/`.
/// - A nameless cookie whose value starts like a prefixed name is refused (it would be sent as
///   one).
enum CookiePrefixRules {
    /// Whether a cookie with these properties may be stored. `hasRootPath`: for `Set-Cookie`, a
    /// `Path` attribute was given and the cookie's path is `/`; for a record, its path is `/`.
    static func allow(name: String, value: String, isSecure: Bool, isHostOnly: Bool, hasRootPath: Bool) -> Bool {
        let lowerName = name.lowercased()
        if lowerName.hasPrefix("__secure-"), !isSecure { return false }
        if lowerName.hasPrefix("__host-"), !(isSecure && isHostOnly && hasRootPath) { return false }
        if name.isEmpty {
            let lowerValue = value.lowercased()
            if lowerValue.hasPrefix("__secure-") || lowerValue.hasPrefix("__host-") { return false }
        }
        return true
    }

    /// Whether a cookie record (inserted, or read from a jar file) keeps the prefix rules.
    static func allow(_ cookie: StoredCookie) -> Bool {
        allow(name: cookie.name, value: cookie.value, isSecure: cookie.isSecure, isHostOnly: cookie.isHostOnly, hasRootPath: cookie.path == "/")
    }
}
