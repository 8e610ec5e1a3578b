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
    ///
    /// libcurl's vaguer codes are refined from what the transfer itself knows:
    /// - `-1` after a response whose body fell short of its `Content-Length` (a connection closed
    ///   mid-body, or a `Content-Length` larger than the body) → `.networkConnectionLost`;
    /// - `-1` with a TLS message → `.secureConnectionFailed`; `-1` before any response (a malformed
    ///   header) and `-1002` for an http(s) URL (curl's "unsupported HTTP version" for a malformed
    ///   status line) → `.badServerResponse`;
    /// - `-1` when libcurl could not decode an encoded body (corrupt data, a checksum mismatch,
    ///   bytes after the end of the stream) → `.cannotDecodeContentData`.
    /// The original error stays in ``underlyingError`` and its text in ``message``.
    package static func transport(
        _ error: any Error,
        request: URLRequest?,
        response: HTTPURLResponse?,
        body: Data?,
        received: (bytes: Int64, expected: Int64?)? = nil
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
        let refined = refine(code, message: nsError.localizedDescription, response: response, received: received)
        return NetworkingError(
            .transport(refined), nsError.localizedDescription,
            request: request, response: response, body: body, underlyingError: urlError
        )
    }
}

private func refine(
    _ code: URLError.Code, message: String, response: HTTPURLResponse?, received: (bytes: Int64, expected: Int64?)?
) -> URLError.Code {
    switch code {
    case .unknown:
        let lowered = message.lowercased()
        if lowered.contains("ssl") || lowered.contains("tls") || lowered.contains("certificate") {
            return .secureConnectionFailed
        }
        if let response, isContentDecodingFailure(lowered, response: response) { return .cannotDecodeContentData }
        // libcurl refuses more than 5 stacked codings while reading the head ("Reject response due
        // to more than 5 content encodings"), before a response exists; the curl transport fails
        // such a body the same way (ContentDecoder.maximumStackedCodings).
        if lowered.contains("content encodings") { return .cannotDecodeContentData }
        if response != nil {
            if let received, let expected = received.expected, received.bytes < expected { return .networkConnectionLost }
            if lowered.contains("transfer closed") { return .networkConnectionLost }
            return code
        }
        return .badServerResponse
    case .unsupportedURL where response == nil:
        return .badServerResponse
    default:
        return code
    }
}

/// Whether libcurl (inside FoundationNetworking) gave up decoding `response`'s body: a bad
/// checksum or corrupt data (`CURLE_BAD_CONTENT_ENCODING`: "Error while processing content
/// unencoding: …" or
/// "Unrecognized or bad HTTP Content or Transfer-Encoding"), or bytes after the end of the encoded
/// stream, which libcurl 7.88 refuses with
/// `CURLE_WRITE_ERROR` ("Failed writing received data to disk/application") — for an encoded body
/// only, as nothing else of this library's makes that write fail.
private func isContentDecodingFailure(_ message: String, response: HTTPURLResponse) -> Bool {
    if message.contains("content unencoding") { return true }
    guard let coding = response.value(forHTTPHeaderField: "Content-Encoding")?.trimmingCharacters(in: .whitespaces).lowercased(),
          !coding.isEmpty, coding != "identity"
    else { return false }
    // CURLE_WRITE_ERROR (bytes after the end), or CURLE_BAD_CONTENT_ENCODING's bare text.
    return message.contains("failed writing received data") || message.contains("content or transfer-encoding")
        || message.contains("content encoding")
}

/// `URLError.Code(rawValue:)` is failable in swift-corelibs-foundation and not on Apple platforms.
func makeURLErrorCode(_ rawValue: Int) -> URLError.Code {
    #if canImport(FoundationNetworking)
    return URLError.Code(rawValue: rawValue) ?? .unknown
    #else
    return URLError.Code(rawValue: rawValue)
    #endif
}
