import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one error type AsyncNetworking throws.
///
/// Every failure — a bad URL caught before sending, a transport error from URLSession, a status code
/// or content type the response validation refused, a body that could not be decoded, a cancelled
/// task — is a `NetworkingError`. ``kind`` says which; the other properties carry what was known when
/// it happened, so a caller can read a server's error JSON from ``body`` and its status from
/// ``response``.
///
/// The ``description`` is safe to log: it names the method, the URL (with any user and password
/// removed) and the status, and never prints header values such as `Authorization` or cookies.
public struct NetworkingError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong.
    ///
    /// New kinds can be added in a minor release without breaking your code: the enum is
    /// `@nonexhaustive` (SE-0487), so a `switch` over it outside this package ends with
    /// `@unknown default:` — the compiler asks for it — and still matches every kind by name
    /// (`case .transport(.timedOut)`, `catch let e where e.kind == .cancelled`).
    @nonexhaustive
    public enum Kind: Sendable, Hashable {
        /// A URL string could not be parsed, or has no scheme or host.
        case invalidURL
        /// The URL's scheme is not `http` or `https`.
        case unsupportedScheme(String)
        /// Parameters could not be encoded into the request (for example a `NaN` for JSON), or a
        /// header field of the request to be sent — whatever set it — breaks the field rules (a
        /// name that is not a token, a control character other than HTAB in a value): nothing
        /// was sent.
        case requestSerializationFailed
        /// The transport (URLSession, or libcurl mapped to the same codes) reported a failure.
        case transport(URLError.Code)
        /// The response arrived but its status code was not acceptable.
        case unacceptableStatusCode(Int)
        /// The response arrived but its `Content-Type` (the associated value, if any) was not acceptable.
        case unacceptableContentType(String?)
        /// The body could not be turned into the requested value (the decoding error is ``NetworkingError/underlyingError``).
        case responseSerializationFailed
        /// The transfer was cancelled: by ``TransferHandle/cancel()``, by the caller's `Task`, or by abandoning its event stream.
        case cancelled
        /// The session was invalidated before or while the transfer ran.
        case sessionInvalidated
        /// A downloaded file could not be moved to its destination; ``NetworkingError/fileURL`` says where the bytes are.
        case downloadMoveFailed
        /// The response body is larger than the limit (in bytes) the caller set.
        case responseTooLarge(limit: Int64)
        /// The stream's in-memory buffer passed its hard limit (in bytes) and spilling to disk is off.
        case bufferLimitExceeded(limit: Int)
        /// A local file (an upload source or a multipart part) could not be read; ``NetworkingError/fileURL`` names it.
        case fileReadFailed
        /// A local file could not be written; ``NetworkingError/fileURL`` names it.
        case fileWriteFailed
        /// The operation is not supported in the transfer's current state (the message says why).
        case unsupportedOperation
        /// The server required authentication and no (or no accepted) credential was available.
        case authenticationFailed
        /// The manager's transport could not start: the message names what is missing (for the
        /// curl transport, `libcurl.so.4` and why it could not be loaded).
        case transportUnavailable
        /// The TLS server at `host` failed the manager's ``SecurityPolicy`` for it (the reason
        /// says what failed). Nothing was sent to it.
        case serverTrustFailed(host: String, reason: ServerTrustFailureReason)
        /// The manager's transport cannot enforce the ``SecurityPolicy`` for this host (any policy
        /// but ``SecurityPolicy/default`` on the URLSession transport): nothing was sent.
        case securityPolicyUnsupported
        /// A plain `http` URL to a host that is not loopback, under a policy with
        /// ``SecurityPolicy/requiresHTTPS``: nothing was sent.
        case cleartextRefused
        /// A certificate or public-key pin given to a ``SecurityPolicy`` could not be read.
        case invalidCertificate
        /// The TLS server at `host` asked for a client certificate (mutual TLS) and refused the one
        /// presented, or its absence. With TLS 1.3 the server says so just after the handshake:
        /// the request may have been written, but the server never processed it.
        case clientCertificateRejected(host: String)
        /// The ``ClientIdentity`` could not be used: a file could not be read, the passphrase is
        /// wrong, or the key does not match the certificate (the message says which, as the TLS
        /// library reported it).
        case clientIdentityFailed
        /// A pinning ``SecurityPolicy`` (pinned public keys or certificates) was given to an
        /// ``HTTPClient`` whose base URL is not `https` (or missing): refused when the client is
        /// made or the policy set, as AFNetworking's `securityPolicy` setter does.
        case pinningRequiresHTTPS
        /// A streamed request body had to be sent again (after a 307/308 or an authentication
        /// challenge) and its producer could not make a new stream: a body given once
        /// (``BodyStreamProducer/once(_:length:)``), or a producer that returned `nil`.
        case bodyStreamNotReplayable
        /// A ``RequestAdapter`` threw while preparing the request (its error is
        /// ``NetworkingError/underlyingError``); nothing was sent for that attempt.
        case requestAdaptationFailed
        /// A custom validation closure (``Request/validate(_:)``) refused the response (its error
        /// is ``NetworkingError/underlyingError``; the response and body are attached).
        case responseValidationFailed
        /// Reachability could not be monitored: the platform's monitor could not start (on Linux,
        /// an rtnetlink socket or `getifaddrs` failed, or a network namespace could not be
        /// entered; the message says which, with the errno).
        case reachabilityUnavailable
        /// A line of a decoded stream (``_Concurrency/AsyncSequence/lines(maxLineLength:)``, JSON Lines) or a
        /// server-sent event grew past the limit (in bytes) before it ended: the stream fails
        /// rather than buffer without bound. The limits are ``StreamLimits``.
        case streamElementTooLarge(limit: Int)
        /// A request matched no stub of the ``HTTPStubs`` its manager was built with; the message
        /// names the method and the URL. Nothing was sent anywhere.
        case unmatchedStub
        /// A timeout the request carries (`URLRequest.timeoutInterval`, ``Request/timeoutInterval``,
        /// ``HTTPClient/timeoutInterval``) is NaN or negative; the message gives the value.
        /// Nothing was sent. Zero, `.infinity` and huge values are accepted: they mean no timeout.
        case invalidTimeout
        /// The proxy failed the transfer before the origin was reached: it could not be resolved
        /// or connected to, refused the `CONNECT` tunnel (e.g. `407` without valid credentials;
        /// the status is in the message), or failed the SOCKS5 handshake (credentials refused,
        /// target unreachable). A `407` to an absolute-form `http://` request is a response, not
        /// this error. See <doc:Proxies>.
        case proxyFailed
        /// The transport cannot route through the requested ``ProxyConfiguration``: the URLSession
        /// transport on Linux takes only ``ProxyConfiguration/environment``; or the request's
        /// proxy came from an environment variable that names no proxy this library can use
        /// (``ProxyConfiguration/refusal(for:)``), so it is refused rather than sent directly.
        case proxyUnsupported
        /// A WebSocket opening handshake was refused: the server did not answer `101 Switching
        /// Protocols` (a redirect included: handshakes follow none), or its answer broke RFC 6455
        /// §4.2.2 / RFC 7692 (`Sec-WebSocket-Accept`, `Upgrade`, `Connection`, a subprotocol or
        /// extension that was not offered). ``NetworkingError/response`` carries the answer's
        /// status and fields when it was HTTP. Also thrown for options or header fields refused
        /// before anything was sent.
        case webSocketHandshakeFailed
        /// A WebSocket connection failed: the peer broke RFC 6455/7692 or passed a limit, and this
        /// client closed it with `closeCode` (1002 protocol error, 1007 invalid data, 1009
        /// message too big); or the peer's close handshake did not finish in time.
        case webSocketFailed(closeCode: UInt16)
        /// A WebSocket is closed or closing: nothing more can be sent or pinged.
        case webSocketClosed
        /// A request trailer field (``RequestTrailers``) was refused: its name is not an HTTP
        /// token, its value holds a control character other than HTAB, or the field may not be sent as a trailer (RFC
        /// 9110 §6.5.1: framing, routing, authentication, request modifiers, content format — e.g.
        /// `Content-Length`, `Transfer-Encoding`, `Host`, `Authorization`). The message names the
        /// field, never its value. Fixed fields are checked before anything is sent; computed
        /// fields after the body, before the request is completed (the server never sees a
        /// complete request).
        case invalidTrailerField
        /// The call's total deadline passed before it ended (``RequestDeadline``: set with
        /// ``HTTPClient/deadline``, ``Request/deadline(_:)`` or ``TransferOptions/deadline``): the
        /// attempt or wait running then was stopped. The deadline covers the whole call —
        /// waiting for a slot, connecting, redirects, credential retries, retries and their
        /// waits, reading the body — unlike the idle timeout (``HTTPClient/timeoutInterval``,
        /// `URLRequest.timeoutInterval`), which bounds each wait for data and fails an attempt
        /// with ``transport(_:)`` `.timedOut`. ``NetworkingError/attemptCount`` says how many
        /// attempts the call made; the message gives the deadline.
        case deadlineExceeded
        /// A cookie given to `CookieJar.insert(_:)` could not have come from a valid `Set-Cookie`
        /// (RFC 6265bis §5.6): a control character, a `;`, an `=` in its name, surrounding spaces,
        /// an empty name and value, or a domain or path no `Set-Cookie` could set. Nothing was
        /// stored. The message names the cookie, never its value.
        case invalidCookie
    }

    /// What went wrong.
    public let kind: Kind
    /// A human-readable explanation of this particular failure.
    public let message: String
    /// The request that failed, when there was one.
    public let request: URLRequest?
    /// The HTTP response, when one arrived before the failure.
    public let response: HTTPURLResponse?
    /// The response body received before the failure, when there was one (for error payloads).
    public let body: Data?
    /// The error that caused this one (a `URLError`, a `DecodingError`, a POSIX error...), if any.
    public let underlyingError: (any Error)?
    /// A file involved in the failure: where the downloaded bytes are, or which file could not be read.
    public let fileURL: URL?
    /// How many attempts the failed call made, counting the last, for the calls that can make
    /// more than one: ``HTTPClient``'s awaiting calls (each retry of the retry policy is an
    /// attempt; a credential renewed or a Basic challenge answered is one too) and awaited
    /// downloads that resume by themselves. `nil` for the other calls, which make one attempt
    /// (redirects and challenges answered inside a transfer are not counted), and for errors
    /// thrown before anything was sent.
    public let attemptCount: Int?

    /// Creates an error. Library users rarely need this; it is public for custom serializers and hooks.
    public init(
        _ kind: Kind,
        _ message: String = "",
        request: URLRequest? = nil,
        response: HTTPURLResponse? = nil,
        body: Data? = nil,
        underlyingError: (any Error)? = nil,
        fileURL: URL? = nil,
        attemptCount: Int? = nil
    ) {
        self.kind = kind
        self.message = message
        self.request = request
        self.response = response
        self.body = body
        self.underlyingError = underlyingError
        self.fileURL = fileURL
        self.attemptCount = attemptCount
    }

    /// The HTTP status code of ``response``, if a response arrived.
    public var statusCode: Int? { response?.statusCode }

    /// The `URLError` code when ``kind`` is a transport failure, else `nil`.
    public var urlErrorCode: URLError.Code? {
        if case .transport(let code) = kind { return code }
        return nil
    }

    /// Returns a copy with the request, response and body filled in where they were missing.
    package func adding(request: URLRequest? = nil, response: HTTPURLResponse? = nil, body: Data? = nil) -> NetworkingError {
        NetworkingError(
            kind, message,
            request: self.request ?? request,
            response: self.response ?? response,
            body: self.body ?? body,
            underlyingError: underlyingError,
            fileURL: fileURL,
            attemptCount: attemptCount
        )
    }

    /// Returns a copy that says the call made `attempts` attempts (``attemptCount``); `attempts`
    /// below 1 (nothing was sent) leaves it as it is.
    package func counting(attempts: Int) -> NetworkingError {
        guard attempts > 0 else { return self }
        return NetworkingError(
            kind, message, request: request, response: response, body: body,
            underlyingError: underlyingError, fileURL: fileURL, attemptCount: attempts
        )
    }

    /// A one-line description that never includes header values or URL credentials.
    public var description: String {
        var parts = ["NetworkingError.\(kindName)"]
        if !message.isEmpty { parts.append(Redaction.text(message)) }
        if let request {
            parts.append("\(request.httpMethod ?? "GET") \(Self.redacted(request.url))")
        }
        if let response { parts.append("status \(response.statusCode)") }
        if let fileURL { parts.append("file \(fileURL.path)") }
        if let attemptCount { parts.append(attemptCount == 1 ? "after 1 attempt" : "after \(attemptCount) attempts") }
        if let underlyingError, !(underlyingError is NetworkingError) {
            parts.append("underlying: \(Self.describeUnderlying(underlyingError))")
        }
        return parts.joined(separator: " — ")
    }

    /// Same as ``description``, plus the size of the body.
    public var debugDescription: String {
        description + (body.map { " — body \($0.count) bytes" } ?? "")
    }

    private var kindName: String {
        switch kind {
        case .invalidURL: "invalidURL"
        case .unsupportedScheme(let scheme): "unsupportedScheme(\(scheme))"
        case .requestSerializationFailed: "requestSerializationFailed"
        case .transport(let code): "transport(\(code.rawValue))"
        case .transportUnavailable: "transportUnavailable"
        case .unacceptableStatusCode(let code): "unacceptableStatusCode(\(code))"
        case .unacceptableContentType(let type): "unacceptableContentType(\(type ?? "none"))"
        case .responseSerializationFailed: "responseSerializationFailed"
        case .cancelled: "cancelled"
        case .sessionInvalidated: "sessionInvalidated"
        case .downloadMoveFailed: "downloadMoveFailed"
        case .responseTooLarge(let limit): "responseTooLarge(limit: \(limit))"
        case .bufferLimitExceeded(let limit): "bufferLimitExceeded(limit: \(limit))"
        case .fileReadFailed: "fileReadFailed"
        case .fileWriteFailed: "fileWriteFailed"
        case .unsupportedOperation: "unsupportedOperation"
        case .authenticationFailed: "authenticationFailed"
        case .serverTrustFailed(let host, let reason): "serverTrustFailed(host: \(host), reason: \(reason))"
        case .securityPolicyUnsupported: "securityPolicyUnsupported"
        case .cleartextRefused: "cleartextRefused"
        case .invalidCertificate: "invalidCertificate"
        case .clientIdentityFailed: "clientIdentityFailed"
        case .clientCertificateRejected(let host): "clientCertificateRejected(host: \(host))"
        case .pinningRequiresHTTPS: "pinningRequiresHTTPS"
        case .bodyStreamNotReplayable: "bodyStreamNotReplayable"
        case .requestAdaptationFailed: "requestAdaptationFailed"
        case .responseValidationFailed: "responseValidationFailed"
        case .reachabilityUnavailable: "reachabilityUnavailable"
        case .streamElementTooLarge(let limit): "streamElementTooLarge(limit: \(limit))"
        case .unmatchedStub: "unmatchedStub"
        case .invalidTimeout: "invalidTimeout"
        case .proxyFailed: "proxyFailed"
        case .proxyUnsupported: "proxyUnsupported"
        case .webSocketHandshakeFailed: "webSocketHandshakeFailed"
        case .webSocketFailed(let code): "webSocketFailed(closeCode: \(code))"
        case .webSocketClosed: "webSocketClosed"
        case .invalidTrailerField: "invalidTrailerField"
        case .deadlineExceeded: "deadlineExceeded"
        case .invalidCookie: "invalidCookie"
        }
    }

    /// The URL without user, password, query or fragment (queries often carry tokens).
    package static func redacted(_ url: URL?) -> String {
        Redaction.url(url)
    }

    /// An underlying error for the description. URLSession's errors carry the failing URL (user
    /// info and query included) in their user info, so only their domain and code are printed;
    /// anything else is printed with URLs and credential headers redacted.
    private static func describeUnderlying(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            return "\(NSURLErrorDomain) \(urlError.code.rawValue)"
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain || nsError.domain == NSCocoaErrorDomain || nsError.domain == NSPOSIXErrorDomain {
            return "\(nsError.domain) \(nsError.code)"
        }
        return Redaction.text(String(describing: error))
    }
}

/// `localizedDescription` (and `errorDescription`) is the redacted ``NetworkingError/description``.
extension NetworkingError: LocalizedError {
    /// The same text as ``description``: safe to log, with credentials, queries and header values removed.
    public var errorDescription: String? { description }
}
