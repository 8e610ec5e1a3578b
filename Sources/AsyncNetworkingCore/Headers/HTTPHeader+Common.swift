import Foundation

/// The common header fields, as values to put in ``HTTPHeaders``
/// (`headers: [.accept("application/json"), .authorization(bearerToken: token)]`).
extension HTTPHeader {
    /// `Accept: <value>`.
    public static func accept(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept", value: value)
    }

    /// `Accept-Encoding: <value>`.
    public static func acceptEncoding(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Encoding", value: value)
    }

    /// `Accept-Language: <value>`.
    public static func acceptLanguage(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Accept-Language", value: value)
    }

    /// `Content-Type: <value>`.
    public static func contentType(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Type", value: value)
    }

    /// `User-Agent: <value>`.
    public static func userAgent(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: value)
    }

    /// `Authorization: <value>`, as given.
    public static func authorization(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: value)
    }

    /// `Authorization: Basic base64(username:password)` (RFC 7617, UTF-8), as AFNetworking's
    /// `setAuthorizationHeaderFieldWithUsername:password:`. Sent as written, before any challenge:
    /// use it over https only. The credential headers never follow a redirect to another origin.
    public static func authorization(username: String, password: String) -> HTTPHeader {
        let token = Data("\(username):\(password)".utf8).base64EncodedString()
        return HTTPHeader(name: "Authorization", value: "Basic \(token)")
    }

    /// `Authorization: Bearer <token>` (RFC 6750).
    public static func authorization(bearerToken token: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: "Bearer \(token)")
    }

    /// `Accept-Encoding` with the encodings both transports decode: `gzip;q=1.0, deflate;q=0.9`.
    /// Neither transport needs it (curl and URLSession send their own); set it to make the header
    /// explicit and stable, for example for a cache key.
    public static let defaultAcceptEncoding = HTTPHeader.acceptEncoding("gzip;q=1.0, deflate;q=0.9")

    /// AFNetworking's default `Accept-Language` (see ``DefaultHeaders/acceptLanguage(preferredLanguages:)``).
    public static let defaultAcceptLanguage = HTTPHeader.acceptLanguage(DefaultHeaders.acceptLanguage())

    /// AFNetworking's default `User-Agent` (see ``DefaultHeaders/userAgent()``).
    public static let defaultUserAgent = HTTPHeader.userAgent(DefaultHeaders.userAgent())
}

extension HTTPHeaders {
    /// ``DefaultHeaders/standard`` as ``HTTPHeaders``: `Accept-Language`, then `User-Agent`.
    public static let standard: HTTPHeaders = [.defaultAcceptLanguage, .defaultUserAgent]
}
