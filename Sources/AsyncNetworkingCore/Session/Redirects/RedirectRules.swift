import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The library's rules for following a redirect, whichever transport runs it (pure functions).
///
/// - Only `http` and `https` targets are ever followed; anything else ends the transfer with
///   ``NetworkingError/Kind/unsupportedScheme(_:)`` before a byte goes out.
/// - When the origin changes (scheme, host or port), `Authorization`, `Cookie` and
///   `Proxy-Authorization` are removed from the proposed request, for every redirect status. A
///   redirect hook sees the request already stripped and may add them back on purpose.
///   Configuration headers are request headers by then, and an answered credential is added per
///   attempt to its own origin only (``CredentialScope``).
/// - 307 and 308 keep the method and the body; 301, 302 and 303 follow the transport's usual rules
///   (a POST becomes a GET).
package enum RedirectRules {
    /// Headers that carry credentials and never follow a redirect to another origin by default.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The largest number of redirects one transfer follows.
    static let maximumRedirects = 16

    /// Whether `url` may be followed: an `http` or `https` URL with a host.
    static func unsupportedScheme(of url: URL?) -> String? {
        guard let url else { return "" }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return scheme }
        return nil
    }

    /// Whether two URLs share scheme, host and port (default ports made explicit).
    package static func isSameOrigin(_ a: URL?, _ b: URL?) -> Bool {
        guard let a, let b else { return false }
        let schemeA = a.scheme?.lowercased(), schemeB = b.scheme?.lowercased()
        return schemeA == schemeB
            && a.host?.lowercased() == b.host?.lowercased()
            && port(of: a) == port(of: b)
    }

    /// `request` without its credential headers when it goes to another origin than `previous`.
    static func stripCredentials(from request: URLRequest, comingFrom previous: URL?) -> URLRequest {
        guard !isSameOrigin(previous, request.url) else { return request }
        var stripped = request
        for name in credentialHeaders where stripped.value(forHTTPHeaderField: name) != nil {
            stripped.setValue(nil, forHTTPHeaderField: name)
        }
        return stripped
    }

    /// Whether a redirect with `status` keeps the method and the body (307, 308).
    static func keepsMethodAndBody(_ status: Int) -> Bool { status == 307 || status == 308 }

    /// Whether `method` sends a body (anything but GET and HEAD).
    static func sendsBody(_ method: String?) -> Bool {
        let method = (method ?? "GET").uppercased()
        return method != "GET" && method != "HEAD"
    }

    private static func port(of url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// Whether `status` is a redirect the library follows (with a `Location`).
    static func isRedirect(_ status: Int) -> Bool { [301, 302, 303, 307, 308].contains(status) }

    /// The request that follows a redirect, built as URLSession builds it (for a transport that
    /// does not follow redirects itself): `Location` resolved against the response's URL; a 301
    /// or 302 turns a POST into a GET and a 303 turns anything but HEAD into a GET — dropping the
    /// body and its `Content-Type` and `Content-Length` — while 307 and 308 keep method and body.
    /// `nil` when the response is no redirect or has no usable `Location`.
    static func proposedRequest(after response: HTTPURLResponse, for request: URLRequest) -> URLRequest? {
        proposedRequest(after: ResponseHead(response), url: response.url, for: request)
    }

    /// The same for a native head received from `url`.
    static func proposedRequest(after head: ResponseHead, url: URL?, for request: URLRequest) -> URLRequest? {
        guard isRedirect(head.statusCode),
              let location = head.value(of: "Location"),
              let base = url ?? request.url,
              let target = URL(string: location, relativeTo: base)?.absoluteURL
        else { return nil }
        var next = request
        next.url = target
        let method = (request.httpMethod ?? "GET").uppercased()
        let becomesGet = (head.statusCode == 303 && method != "HEAD")
            || ((head.statusCode == 301 || head.statusCode == 302) && method == "POST")
        if becomesGet {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.httpBodyStream = nil
            for name in ["Content-Type", "Content-Length", "Transfer-Encoding"] {
                next.setValue(nil, forHTTPHeaderField: name)
            }
        }
        return next
    }
}
