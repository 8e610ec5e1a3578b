import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whose challenge a 401 or 407 is, and which credential may answer it (pure values, used by the
/// Session layer on every transport and by WebSocket handshakes).
///
/// **The rule:** a challenge belongs to whoever sent it. A `401` is the origin's: its protection
/// space is the origin (scheme, host, port) and an origin credential answers it (the challenge
/// hook's, or ``SessionManager/setCredential(_:forHost:)``'s), as `Authorization`. A `407` is the
/// proxy's: its protection space is the proxy the attempt went through (host, port, `isProxy()`,
/// `proxyType` HTTP); only a proxy credential answers it — the hook's answer to that space, sent
/// to that proxy only, as `Proxy-Authorization` on its hop — and an origin credential never goes
/// to a proxy. A `407` with no known proxy, or with no proxy credential to give, is the response.
///
/// Every challenge of the field is read (``AuthenticationChallenge``, RFC 9110 §11.6.1): a Basic
/// challenge after another scheme, or in a second field, is offered as one alone is.
enum ChallengeSpace {
    /// The field holding a head's challenges: `Proxy-Authenticate` for a 407, else `WWW-Authenticate`.
    static func field(for status: Int) -> String {
        status == 407 ? "Proxy-Authenticate" : "WWW-Authenticate"
    }

    /// The Basic challenge among every challenge of `head`'s challenge fields, if any.
    static func basicChallenge(of head: ResponseHead) -> AuthenticationChallenge? {
        AuthenticationChallenge.first("basic", in: AuthenticationChallenge.parse(head.values(of: field(for: head.statusCode))))
    }

    /// The Basic challenge among every challenge of `response`'s challenge field (Foundation joins
    /// repeated fields with `", "`, which parses the same), if any.
    static func basicChallenge(of response: HTTPURLResponse) -> AuthenticationChallenge? {
        let values = response.value(forHTTPHeaderField: field(for: response.statusCode)).map { [$0] } ?? []
        return AuthenticationChallenge.first("basic", in: AuthenticationChallenge.parse(values))
    }

    /// The origin's Basic protection space for `url`.
    static func origin(_ url: URL?, realm: String?) -> URLProtectionSpace {
        URLProtectionSpace(
            host: url?.host ?? "", port: url?.port ?? (url?.scheme?.lowercased() == "https" ? 443 : 80),
            protocol: url?.scheme, realm: realm, authenticationMethod: NSURLAuthenticationMethodHTTPBasic
        )
    }

    /// The proxy's Basic protection space (`isProxy()`, `proxyType` HTTP).
    static func proxy(_ server: ProxyServer, realm: String?) -> URLProtectionSpace {
        URLProtectionSpace(
            proxyHost: server.host, port: server.port, type: NSURLProtectionSpaceHTTPProxy, realm: realm,
            authenticationMethod: NSURLAuthenticationMethodHTTPBasic
        )
    }
}

/// A credential the challenge hook gave for a proxy's `407`, with the proxy it was given for: it
/// goes to that proxy only (same host and port), as the proxy's credential — curl sends it as
/// `Proxy-Authorization` on the proxy's hop — on each later attempt of the transfer that goes
/// through that proxy, and never as a request header, so no origin sees it.
struct ScopedProxyCredential {
    let credential: ProxyCredential
    let host: String
    let port: Int

    /// `nil` unless `space` is a proxy's and `credential` has a user and a password.
    init?(_ credential: URLCredential, space: URLProtectionSpace) {
        guard space.isProxy(), !space.host.isEmpty, let user = credential.user, let password = credential.password else { return nil }
        self.credential = ProxyCredential(user: user, password: password)
        self.host = space.host.lowercased()
        self.port = space.port
    }

    /// `server` with this credential when it is the proxy it was given for (an HTTP proxy at the
    /// same host and port); otherwise `server` unchanged.
    func applied(to server: ProxyServer) -> ProxyServer {
        guard server.kind == .http, server.host.lowercased() == host, server.port == port else { return server }
        var authorized = server
        authorized.credential = credential
        return authorized
    }
}
