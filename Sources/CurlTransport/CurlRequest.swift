import Foundation

/// Everything one curl transfer needs: what to send and how. A plain value; the loop thread turns
/// it into easy-handle options (see `CurlEasyConfiguration`).
package struct CurlRequest: Sendable {
    /// An http or https URL (anything else fails at start with ``CurlRequestError``).
    package var url: URL
    /// The method, e.g. `GET`. `HEAD` is sent with `CURLOPT_NOBODY`; others with a body use
    /// `CURLOPT_UPLOAD` plus `CURLOPT_CUSTOMREQUEST` (so curl adds no `Content-Type` of its own).
    var method: String
    /// Header fields in order. An empty value is sent as an empty field (`Name;` to curl). curl's
    /// own `Expect: 100-continue` is always suppressed unless a field sets `Expect`; its
    /// `Accept: */*` is sent unless a field sets `Accept`.
    var headers: [(name: String, value: String)]
    /// The request body. Default ``CurlRequestBody/empty``.
    package var body: CurlRequestBody
    /// Per-transfer settings. Default ``CurlTransferOptions/default``.
    package var options: CurlTransferOptions
    /// Sends the producer's ``CurlBodyProducer/trailerFields()`` after a chunked body
    /// (`CURLOPT_TRAILERFUNCTION`; see `CurlRequestTrailers`). Needs a ``CurlRequestBody/producer(_:length:)``
    /// body of unknown length and ``CurlHTTPVersion/http1_1``: libcurl 7.88 sends no request
    /// trailers on HTTP/2. Default `false`.
    package var sendsTrailers = false

    package init(
        url: URL, method: String = "GET", headers: [(name: String, value: String)] = [],
        body: CurlRequestBody = .empty, options: CurlTransferOptions = .default
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.options = options
    }

    /// Checks what curl would otherwise fail on obscurely, or send wrongly: the scheme, the method
    /// token, and header fields under the one rule for them (``HeaderFieldValidation``: a token
    /// name, no control character but HTAB in a value — header injection).
    func validate() throws(CurlRequestError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw CurlRequestError("only http and https URLs are supported, not \(url.scheme ?? "a URL without a scheme")")
        }
        guard !method.isEmpty, method.utf8.allSatisfy(ResponseHeadValidation.isTokenByte) else {
            throw CurlRequestError("the method \(method.debugDescription) is not an HTTP token")
        }
        if let problem = HeaderFieldValidation.problem(in: headers) { throw CurlRequestError(problem) }
        if sendsTrailers {
            guard case .producer(_, nil) = body else {
                throw CurlRequestError("request trailers need a chunked body (a producer of unknown length)")
            }
            guard options.httpVersion == .http1_1 else {
                throw CurlRequestError("request trailers need HTTP/1.1: libcurl sends none on HTTP/2")
            }
        }
        if case .file(_, let offset, let length) = body, offset < 0 || length < 0 {
            throw CurlRequestError("a file body needs a non-negative offset and length")
        }
    }
}

/// Where a request body comes from.
package enum CurlRequestBody: Sendable {
    /// No body (named `empty`, not `none`, so it never reads as `Optional.none`).
    case empty
    /// These bytes (sent with their `Content-Length`).
    case data(Data)
    /// `length` bytes of a file starting at `offset`, read with `pread` on the loop thread (sent
    /// with `Content-Length: length`). A file that ends early fails the transfer with
    /// `CURLE_READ_ERROR` and a message naming it.
    case file(URL, offset: Int64, length: Int64)
    /// Pulled from a producer as curl asks; `length` nil means chunked. See ``CurlBodyProducer``.
    case producer(any CurlBodyProducer, length: Int64?)

    /// The length sent as `Content-Length`, or `nil` for no body / chunked (unknown).
    package var length: Int64? {
        switch self {
        case .empty: nil
        case .data(let data): Int64(data.count)
        case .file(_, _, let length): length
        case .producer(_, let length): length
        }
    }
}

/// Which HTTP version to negotiate.
package enum CurlHTTPVersion: Sendable, Hashable {
    /// HTTP/2 over TLS when ALPN agrees, HTTP/1.1 for cleartext (`CURL_HTTP_VERSION_2TLS`). The default.
    case automatic
    /// HTTP/1.1 only.
    case http1_1
    /// HTTP/2 without upgrade, also over cleartext (`CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE`).
    case http2PriorKnowledge
}

/// A credential curl answers challenges with itself.
struct CurlCredential: Sendable, Hashable {
    /// Which schemes curl may use.
    enum Scheme: Sendable, Hashable { case basic, digest, basicOrDigest }
    var user: String
    var password: String
    var scheme: Scheme
}

/// Per-transfer settings of a ``CurlRequest``.
package struct CurlTransferOptions: Sendable, Hashable {
    package init() {}

    /// Sends `Accept-Encoding` with every coding the library decodes (unless the request has its
    /// own) and delivers the body decoded by ``CurlBodyDecoding`` — never by libcurl — within the
    /// receive window; a body whose encoded stream does not end properly fails with
    /// `CURLE_BAD_CONTENT_ENCODING`. `false`: no `Accept-Encoding`, the body as received. Default `true`.
    var decodesContent = true
    /// Connect timeout (`CURLOPT_CONNECTTIMEOUT_MS`). Default `nil`: curl's own (300 s).
    var connectTimeout: Duration?
    /// Fails with `CURLE_OPERATION_TIMEDOUT` when no byte (head, body, or request body) moves for
    /// this long while neither side is paused; measured by the loop itself, to within a few
    /// milliseconds of the loop's turn. The clock starts when the loop adds the transfer, so time
    /// spent waiting inside curl for a connection (``CurlMultiLoop/Configuration/maxHostConnections``)
    /// counts, as URLSession's request timeout does. Default `nil`: never.
    package var idleTimeout: Duration?
    /// Fails when the whole transfer takes longer (`CURLOPT_TIMEOUT_MS`). Default `nil`: never.
    package var totalTimeout: Duration?
    /// Default ``CurlHTTPVersion/automatic``.
    package var httpVersion = CurlHTTPVersion.automatic
    /// `CURLOPT_PIPEWAIT`: wait for a connection to the origin that is still being made, to
    /// multiplex on it if it becomes HTTP/2, rather than open another. Default `false`.
    package var waitsForMultiplexing = false
    /// When `false`, ``receiveWindow`` is dropped once the response head shows HTTP/2: the stream
    /// is never paused for its consumer (libcurl 7.88 would keep up to 32 MiB of a paused stream)
    /// and the consumer's own buffer bounds memory. Over HTTP/1.1 the window applies. Default `true`.
    package var keepsWindowOverHTTP2 = true
    /// Gives the transfer's TLS connection an SSL configuration of its own (an explicit
    /// `CURL_SSLVERSION_MAX_TLSv1_3`, which OpenSSL 3's maximum already is), so libcurl never
    /// shares it with transfers that may multiplex. libcurl 7.88 (`ConnectionExists`) lets a
    /// transfer that wants HTTP/2 take a busy HTTP/1.1 connection to the same origin once another
    /// connection there negotiated h2 ("When not multiplexed, we have a match here!"): its request
    /// is then sent in the middle of another transfer's response (seen as "Received HTTP/0.9").
    /// Set for HTTP/1.1-only transfers over `https`. Default `false`.
    package var keepsOffMultiplexedConnections = false
    /// Answered by curl itself when set. Default `nil` (a 401 is delivered as is).
    /// Never set by ``SessionManager``: the Session layer answers challenges and adds an answered
    /// credential itself, scoped to its origin (``ScopedCredential``); curl follows no redirect,
    /// so this applies to one attempt's URL only (loop-level use and tests).
    var credential: CurlCredential?
    /// When `false`, ignores proxy environment variables (`CURLOPT_PROXY ""`). Default `true`:
    /// `http_proxy`, `https_proxy`, `no_proxy`… as curl reads them.
    package var usesEnvironmentProxy = true
    /// The proxy for this transfer (``CurlProxyOptions``): when set, the environment is not read
    /// and ``usesEnvironmentProxy`` does not matter. Default `nil`.
    package var proxy: ProxyServer?
    /// Flow control without a round trip: the transfer pauses its receive side by itself (the write
    /// callback answers `CURL_WRITEFUNC_PAUSE`) once it has delivered this many bytes more than the
    /// consumer reported with `CurlMultiLoop.didConsume(_:totalBytes:)`; it may overshoot by one
    /// chunk (at most ``receiveBufferSize``). Counts restart with a replacing response head.
    /// Default `nil`: no window (pause only on command).
    package var receiveWindow: Int?
    /// `CURLOPT_BUFFERSIZE` (the most bytes one write callback delivers). Default `nil`: curl's 16 KiB.
    var receiveBufferSize: Int?

    /// TLS verification, pins and client identity. Default: libcurl's (system roots, verified).
    package var tls = CurlTLSOptions()

    /// All defaults.
    static let `default` = CurlTransferOptions()
}

/// A ``CurlRequest`` that cannot be sent; thrown by `start` before anything happens.
package struct CurlRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    package let message: String
    init(_ message: String) { self.message = message }
    package var description: String { message }
}
