import Foundation

/// Something an ``HTTPClient`` can address a request to: a `String` path or URL, a `URL`, or
/// `URLComponents`.
///
/// Relative references resolve against the client's base URL per RFC 3986 (`..` and `.` included);
/// absolute URLs pass through unchanged.
public protocol URLConvertible: Sendable {
    /// Resolves `self` against `baseURL` into an absolute URL.
    ///
    /// - Parameter baseURL: the client's base URL, already ending in `/` (see
    ///   ``HTTPClient/baseURL``), or `nil`.
    /// - Throws: ``NetworkingError/Kind/invalidURL`` when the reference cannot be parsed, or is
    ///   relative with no base URL.
    func resolved(against baseURL: URL?) throws(NetworkingError) -> URL
}

extension String: URLConvertible {
    /// Parses the string as a URL reference (characters not allowed in URLs, such as spaces, are
    /// percent-encoded) and resolves it against `baseURL`. The empty string is the base URL itself.
    public func resolved(against baseURL: URL?) throws(NetworkingError) -> URL {
        if isEmpty, let baseURL { return baseURL }
        guard let url = URL(string: self, relativeTo: baseURL) else {
            throw NetworkingError(.invalidURL, "not a valid URL reference: \(Redaction.urlString(prefix(200)))")
        }
        return try url.resolved(against: nil)
    }
}

extension URL: URLConvertible {
    /// An absolute URL as it is; a relative one (no scheme) resolved against `baseURL`.
    public func resolved(against baseURL: URL?) throws(NetworkingError) -> URL {
        if scheme != nil { return absoluteURL }
        guard let baseURL else {
            throw NetworkingError(.invalidURL, "\(Redaction.urlString(relativeString.prefix(200))) is relative and the client has no base URL")
        }
        return try relativeString.resolved(against: baseURL)
    }
}

extension URLComponents: URLConvertible {
    /// The components' URL string, resolved like a `String`.
    public func resolved(against baseURL: URL?) throws(NetworkingError) -> URL {
        guard let string else { throw NetworkingError(.invalidURL, "the URL components do not form a URL") }
        return try string.resolved(against: baseURL)
    }
}

extension HTTPClient {
    /// AFNetworking's base-URL rule: a base URL with a non-empty path that does not end in `/` gets
    /// one, so relative paths resolve *under* it (`https://h/v1` + `users` is `https://h/v1/users`,
    /// not `https://h/users`).
    public static func normalizedBaseURL(_ url: URL) -> URL {
        let absolute = url.absoluteURL
        // `URL.path` drops a trailing slash; the components' path keeps it.
        guard var components = URLComponents(url: absolute, resolvingAgainstBaseURL: true),
              !components.percentEncodedPath.isEmpty, !components.percentEncodedPath.hasSuffix("/")
        else { return absolute }
        components.percentEncodedPath += "/"
        return components.url ?? absolute
    }
}
