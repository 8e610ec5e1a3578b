import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkingError {
    /// Maps an error URLSession reported for a task into a `NetworkingError`.
    ///
    /// On Linux URLSession reports `NSError`s in `NSURLErrorDomain` that do not bridge to `URLError`
    /// with `as?`, so the domain and code are read directly. A truncated body and TLS failures arrive
    /// there as code -1 (`URLError.Code.unknown`) with only a message.
    static func transport(
        _ error: any Error,
        request: URLRequest?,
        response: HTTPURLResponse?,
        body: Data?
    ) -> NetworkingError {
        if let error = error as? NetworkingError {
            return error.adding(request: request, response: response, body: body)
        }
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return NetworkingError(
                .transport(.unknown), nsError.localizedDescription,
                request: request, response: response, body: body, underlyingError: error
            )
        }
        let code = makeURLErrorCode(nsError.code)
        if code == .cancelled {
            return NetworkingError(.cancelled, "the transfer was cancelled", request: request, response: response, body: body)
        }
        let urlError = URLError(code, userInfo: nsError.userInfo)
        return NetworkingError(
            .transport(code), nsError.localizedDescription,
            request: request, response: response, body: body, underlyingError: urlError
        )
    }
}

/// `URLError.Code(rawValue:)` is failable in swift-corelibs-foundation and not on Apple platforms.
func makeURLErrorCode(_ rawValue: Int) -> URLError.Code {
    #if canImport(FoundationNetworking)
    return URLError.Code(rawValue: rawValue) ?? .unknown
    #else
    return URLError.Code(rawValue: rawValue)
    #endif
}
