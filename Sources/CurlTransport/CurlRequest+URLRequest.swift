import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlRequest {
    /// A request from a `URLRequest`: its URL, method (default `GET`), header fields and
    /// `httpBody`; `timeoutInterval` becomes the idle timeout, as URLSession reads it.
    ///
    /// `body` replaces `httpBody` when given (a file or a producer). `httpBodyStream` is not read:
    /// pass a producer instead. Returns `nil` when the request has no URL.
    init?(_ urlRequest: URLRequest, body: CurlRequestBody? = nil, options: CurlTransferOptions = .default) {
        guard let url = urlRequest.url else { return nil }
        var options = options
        if options.idleTimeout == nil { options.idleTimeout = SafeTime.timeout(seconds: urlRequest.timeoutInterval) }
        let headers = (urlRequest.allHTTPHeaderFields ?? [:])
            .sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { (name: $0.key, value: $0.value) }
        self.init(
            url: url, method: urlRequest.httpMethod ?? "GET", headers: headers,
            body: body ?? urlRequest.httpBody.map { .data($0) } ?? .empty, options: options
        )
    }
}

extension CurlCompletion {
    /// The `URLError.Code` for this completion: `nil` on success, `.cancelled` for a cancel,
    /// else ``CurlErrorMapping/urlErrorCode(for:)``.
    package var urlErrorCode: URLError.Code? {
        wasCancelled ? .cancelled : CurlErrorMapping.urlErrorCode(for: code)
    }
}
