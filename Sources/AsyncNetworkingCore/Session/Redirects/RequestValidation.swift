import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Checks made before anything is sent, so bad input fails with a clear error instead of a
/// URLSession error code (or a hang).
package enum RequestValidation {
    /// Accepts `http` and `https` URLs with a host, and a `timeoutInterval` that is neither NaN
    /// nor negative (``NetworkingError/Kind/invalidTimeout``; zero, infinite and huge values mean
    /// no timeout).
    static func validate(_ request: URLRequest) throws(NetworkingError) {
        guard let url = request.url else {
            throw NetworkingError(.invalidURL, "the request has no URL", request: request)
        }
        try validate(url, request: request)
        guard request.timeoutInterval >= 0 else { // false for NaN too
            throw NetworkingError(
                .invalidTimeout, "the request's timeout interval is \(request.timeoutInterval) s: use a positive value, or zero or .infinity for none",
                request: request
            )
        }
    }

    /// The one header-field gate (``HeaderFieldValidation``) on a request an attempt is about to
    /// send — after the configuration's fields, the jar's `Cookie`, a challenge's credential,
    /// adapters and hooks have had their say: ``NetworkingError/Kind/requestSerializationFailed``
    /// when a field breaks it; nothing is sent. `original` is the caller's request, for the error.
    static func validateHeaderFields(of request: URLRequest, original: URLRequest? = nil) throws(NetworkingError) {
        let fields = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        if let problem = HeaderFieldValidation.problem(in: fields) {
            throw NetworkingError(.requestSerializationFailed, "\(problem); nothing was sent", request: original ?? request)
        }
    }

    /// Accepts `http` and `https` URLs with a host.
    package static func validate(_ url: URL, request: URLRequest? = nil) throws(NetworkingError) {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            throw NetworkingError(.invalidURL, "the URL has no scheme", request: request)
        }
        guard scheme == "http" || scheme == "https" else {
            throw NetworkingError(.unsupportedScheme(scheme), "only http and https are supported", request: request)
        }
        guard let host = url.host, !host.isEmpty else {
            throw NetworkingError(.invalidURL, "the URL has no host", request: request)
        }
    }
}
