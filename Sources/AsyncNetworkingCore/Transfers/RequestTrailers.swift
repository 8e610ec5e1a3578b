import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Trailer fields sent after a streamed request body (RFC 9110 §6.5, RFC 9112 §7.1.2): fields
/// known only once the body has been sent — a checksum or signature of what went out, a count, a
/// status — as gRPC-style and checksum-verifying servers expect them.
///
/// Given to the `AsyncSequence` uploads and ``SessionManager/stream(for:from:trailers:options:)``.
/// On the curl transport the body goes out chunked over HTTP/1.1 and the fields follow its last
/// chunk (libcurl's `CURLOPT_TRAILERFUNCTION`). A request with trailers is always sent over
/// HTTP/1.1: libcurl 7.88 sends no request trailers on HTTP/2. The URLSession transport cannot send
/// trailers at all (FoundationNetworking has no API for them): such an upload fails with
/// ``NetworkingError/Kind/unsupportedOperation`` before anything is sent, as does one with
/// ``SequenceUploadMode/spooled`` (a body sent with a `Content-Length` has no trailer section).
///
/// Every field is checked (``NetworkingError/Kind/invalidTrailerField``): the name must be an HTTP
/// token, the value must hold no control character but HTAB (the rule every header field passes),
/// and fields that a recipient must see before the
/// content (framing, routing, authentication, request modifiers, content format:
/// `Content-Length`, `Transfer-Encoding`, `Host`, `Authorization`, `Cookie`, `Expect`,
/// `Content-Type`, …) are refused. Names are matched case-insensitively.
///
/// ```swift
/// let digest = DigestBox() // your own running checksum, fed by the body sequence
/// let (body, response) = try await manager.upload(
///     for: request, from: chunks(feeding: digest),
///     trailers: .computed { ["X-Checksum": "sha256=\(await digest.value)"] }
/// )
/// ```
public struct RequestTrailers: Sendable {
    enum Source: Sendable {
        case fields(HTTPHeaders)
        case computed(@Sendable () async throws -> HTTPHeaders)
    }

    let source: Source

    /// These fields, sent after every attempt's body. Checked before anything is sent; the
    /// request also announces their names in a `Trailer` field (unless it sets one itself).
    public static func fields(_ fields: HTTPHeaders) -> RequestTrailers {
        RequestTrailers(source: .fields(fields))
    }

    /// Fields made by `make` once the body sequence has ended, for each attempt (the first, and
    /// again when a factory's body is re-sent). `make` runs on the task that iterates the body; it
    /// may suspend, and the request waits for it before it ends. What it returns is checked then:
    /// a refused field, or an error `make` throws, fails the transfer
    /// (``NetworkingError/Kind/invalidTrailerField``, or
    /// ``NetworkingError/Kind/requestSerializationFailed`` with the thrown error as
    /// ``NetworkingError/underlyingError``) before the body's last chunk is sent, so the server
    /// never sees a complete request. Cancelled with the transfer.
    public static func computed(_ make: @escaping @Sendable () async throws -> HTTPHeaders) -> RequestTrailers {
        RequestTrailers(source: .computed(make))
    }

    /// The fixed fields, checked; `nil` for computed trailers (checked when made).
    func checkedFixedFields(request: URLRequest?) throws(NetworkingError) -> HTTPHeaders? {
        guard case .fields(let fields) = source else { return nil }
        try TrailerFieldRules.check(fields, request: request)
        return fields
    }
}

/// The rules every request trailer field must pass (RFC 9110 §5.1, §5.5, §6.5.1).
enum TrailerFieldRules {
    /// Fields a recipient needs before the content, or that carry credentials or routing: never
    /// sent as trailers (lowercased).
    static let forbiddenNames: Set<String> = [
        // message framing and connection management
        "content-length", "transfer-encoding", "trailer", "te", "connection", "keep-alive", "upgrade",
        "proxy-connection",
        // routing
        "host",
        // authentication and credentials
        "authorization", "proxy-authorization", "www-authenticate", "proxy-authenticate", "cookie", "set-cookie",
        // request modifiers: controls and conditionals
        "cache-control", "expect", "max-forwards", "pragma", "range", "if-match", "if-none-match",
        "if-modified-since", "if-unmodified-since", "if-range",
        // content format and response control data
        "content-type", "content-encoding", "content-range", "age", "expires", "date", "location",
        "retry-after", "vary",
    ]

    /// Throws ``NetworkingError/Kind/invalidTrailerField`` for the first field that breaks a rule.
    /// The message names the field (escaped), never its value.
    static func check(_ fields: HTTPHeaders, request: URLRequest?) throws(NetworkingError) {
        for field in fields {
            if let problem = problem(name: field.name, value: field.value) {
                throw NetworkingError(.invalidTrailerField, problem, request: request)
            }
        }
    }

    /// Why a field may not be sent as a trailer, or `nil` when it may.
    static func problem(name: String, value: String) -> String? {
        // The one rule every header field passes (a token name, no control character but HTAB).
        if let problem = HeaderFieldValidation.problem(name: name, value: value) {
            return "trailer field: \(problem)"
        }
        if forbiddenNames.contains(name.lowercased()) {
            return "\(name) may not be sent as a trailer field (RFC 9110 §6.5.1)"
        }
        return nil
    }
}
