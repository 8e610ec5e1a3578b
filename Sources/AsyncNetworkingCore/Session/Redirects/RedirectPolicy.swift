import Foundation

/// How one request follows redirects (Alamofire's `Redirector`), on top of the manager's rules
/// (only http and https, credentials dropped across origins, at most 16 hops) and its redirect hook.
///
/// A redirect the policy refuses is not followed: the 3xx response and its body become the
/// attempt's result (and a response serializer then refuses its status unless told otherwise).
public enum RedirectPolicy: Sendable, Hashable {
    /// Follow as the manager would. The default.
    case follow
    /// Never follow: the first 3xx is the result.
    case doNotFollow
    /// Follow at most this many redirects; the next 3xx is the result.
    case maximum(Int)
    /// Follow only to the same scheme, host and port.
    case sameOriginOnly

    /// Whether to follow a redirect from `from` to `to` after `followed` earlier redirects.
    func allows(from: URL?, to: URL?, followed: Int) -> Bool {
        switch self {
        case .follow: true
        case .doNotFollow: false
        case .maximum(let limit): followed < limit
        case .sameOriginOnly: RedirectRules.isSameOrigin(from, to)
        }
    }
}
