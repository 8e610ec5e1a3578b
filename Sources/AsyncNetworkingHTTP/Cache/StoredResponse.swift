import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A response as the cache keeps it: the head (status, header fields, when it was requested and
/// received, the request's varying header values) and the body.
struct StoredResponse: Sendable, Hashable {
    /// Everything but the body; what the disk format encodes as its metadata.
    struct Head: Sendable, Hashable, Codable {
        /// The cache key (``CacheKey``): method and URL.
        var key: String
        /// The URL the response answered.
        var url: URL
        /// The status code.
        var statusCode: Int
        /// The response's header fields.
        var headers: HeaderFields
        /// When the request that produced (or last validated) this response was sent (`request_time`).
        var requestTime: Date
        /// When that response was received (`response_time`).
        var responseTime: Date
        /// For each field the response's `Vary` names (lower-cased), a fingerprint of the request's
        /// value (``VaryMatching``); empty when the response does not vary.
        var vary: [String: String]
    }

    /// The head.
    var head: Head
    /// The body.
    var body: Data

    /// The bytes the entry is charged against a memory limit: its body plus its header text and a
    /// fixed overhead of 256 bytes.
    var cost: Int {
        body.count + 256 + head.key.utf8.count + head.headers.dictionary.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 4 }
    }

    /// The response as an `HTTPURLResponse`, with an `Age` field (RFC 9111 §5.1) of `age` seconds,
    /// without any field the cache never replays (``CacheStoredFields``).
    func httpResponse(age: TimeInterval) -> HTTPURLResponse {
        var fields = CacheStoredFields.storable(head.headers)
        fields["Age"] = String(Int(clamping: max(0, age), rounding: .down)) // NaN → 0, huge → Int.max
        return HTTPURLResponse(url: head.url, statusCode: head.statusCode, httpVersion: "HTTP/1.1", headerFields: fields.dictionary)
            ?? HTTPURLResponse(url: head.url, statusCode: head.statusCode, httpVersion: nil, headerFields: nil)!
    }
}

/// The key of a stored response: the method and the URL without its fragment. Pure.
enum CacheKey {
    /// `GET http://host/path?query`.
    static func make(method: String, url: URL) -> String {
        var text = url.absoluteString
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        return "\(method.uppercased()) \(text)"
    }

    /// The key of a request, or `nil` without a URL.
    static func make(_ request: URLRequest) -> String? {
        request.url.map { make(method: request.httpMethod ?? "GET", url: $0) }
    }

    /// A file name for `key`: the hex SHA-256 of the key, so no URL text reaches the disk.
    static func fileName(_ key: String) -> String {
        SHA256.digest(Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
