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
        let lowerName = parsed.name.lowercased()
        if lowerName.hasPrefix("__secure-"), !parsed.secure { return .failure(.prefixRules) }
        if lowerName.hasPrefix("__host-"), !(parsed.secure && isHostOnly && path == "/") { return .failure(.prefixRules) }
        if parsed.name.isEmpty, parsed.value.lowercased().hasPrefix("__secure-") || parsed.value.lowercased().hasPrefix("__host-") {
            return .failure(.prefixRules) // a nameless cookie may not look like a prefixed one (§5.7 step 21)
        }
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
