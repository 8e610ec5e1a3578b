import Foundation

/// Identifies one transfer of a `CurlMultiLoop`; unique within the loop, increasing.
package struct CurlTransferID: Hashable, Sendable, Comparable, CustomStringConvertible {
    package let rawValue: UInt64
    package static func < (lhs: CurlTransferID, rhs: CurlTransferID) -> Bool { lhs.rawValue < rhs.rawValue }
    package var description: String { "curl#\(rawValue)" }
}

/// Something that happened to a transfer during one loop turn. A turn's events reach the handler
/// together, in the order they happened for each transfer.
///
/// Per transfer: zero or more ``sent(_:totalBytes:)``; ``response(_:_:)`` (again if a later head
/// replaces the first, e.g. after curl answered an authentication challenge); ``data(_:_:)``
/// chunks; exactly one ``completed(_:_:)``, always last.
package enum CurlEvent: Sendable {
    /// A final response head (1xx heads are skipped).
    case response(CurlTransferID, ResponseHead)
    /// The next body bytes, decoded when ``CurlTransferOptions/decodesContent``. Chunks of one turn
    /// are joined into one event.
    case data(CurlTransferID, Data)
    /// Request body bytes handed to curl so far (a running total; it can go down when curl rewinds
    /// the body to send it again).
    case sent(CurlTransferID, totalBytes: Int64)
    /// The transfer ended; nothing follows.
    case completed(CurlTransferID, CurlCompletion)

    /// The transfer this event belongs to.
    package var transferID: CurlTransferID {
        switch self {
        case .response(let id, _), .data(let id, _), .sent(let id, _), .completed(let id, _): id
        }
    }
}

/// How a transfer ended.
package struct CurlCompletion: Sendable {
    /// The `CURLcode`; 0 is success. A ``CurlMultiLoop/cancel(_:)`` or shutdown gives
    /// `CURLE_ABORTED_BY_CALLBACK` (42) with ``wasCancelled`` set.
    package var code: Int32
    /// curl's error buffer (or `curl_easy_strerror`, or this library's reason); empty on success.
    package var message: String
    /// Set when the transfer was cancelled through the loop (not by the server or the network).
    package var wasCancelled: Bool
    /// Measured by curl; zeros for a transfer cancelled before it began.
    package var metrics: CurlMetrics
    /// Set when the policy's ``ServerTrustEvaluator`` refused the connection (``code`` is then
    /// `CURLE_ABORTED_BY_CALLBACK`, and nothing of the request was sent). Default `nil`.
    package var trustRejection: ServerTrustFailureReason? = nil
    /// What the TLS handshake of the connection this transfer made showed (empty for a reused
    /// connection or cleartext). Default empty.
    package var handshake = TLSHandshakeNotes()
    /// Whether any response line (a status line) arrived. Default `false`.
    package var responseStarted = false
    /// Trailer fields that followed a chunked body (only on success). Default empty.
    package var trailers: [(name: String, value: String)] = []

    /// Whether curl reported success.
    var succeeded: Bool { code == 0 && !wasCancelled }
}

/// Timings and counters from `CURLINFO_*` at completion. Times are from the transfer's start.
package struct CurlMetrics: Sendable, Hashable {
    /// `CURLINFO_NAMELOOKUP_TIME_T`.
    package var nameLookup: Duration = .zero
    /// `CURLINFO_CONNECT_TIME_T` (TCP connected).
    package var connect: Duration = .zero
    /// `CURLINFO_APPCONNECT_TIME_T` (TLS done; zero for cleartext).
    package var appConnect: Duration = .zero
    /// `CURLINFO_PRETRANSFER_TIME_T` (about to send).
    package var preTransfer: Duration = .zero
    /// `CURLINFO_STARTTRANSFER_TIME_T` (first response byte).
    package var startTransfer: Duration = .zero
    /// `CURLINFO_TOTAL_TIME_T`.
    package var total: Duration = .zero
    /// `CURLINFO_SIZE_DOWNLOAD_T`: body bytes received, as they came off the connection (a
    /// content coding is decoded after curl, by ``CurlBodyDecoding``, never by libcurl).
    package var bytesReceived: Int64 = 0
    /// `CURLINFO_SIZE_UPLOAD_T`: body bytes sent.
    var bytesSent: Int64 = 0
    /// `HTTP/1.0`, `HTTP/1.1`, `HTTP/2`, `HTTP/3`, or `nil` when no response arrived.
    package var httpVersion: String?
    /// `CURLINFO_NUM_CONNECTS`: new connections this transfer opened (0 = a reused connection).
    var newConnections = 0
    /// `CURLINFO_REDIRECT_COUNT` (0: this layer never lets curl follow redirects).
    var redirectCount = 0
    /// `CURLINFO_PRIMARY_IP`, e.g. `127.0.0.1`.
    package var remoteAddress: String?
    /// `CURLINFO_PRIMARY_PORT`.
    package var remotePort: Int?
    /// `CURLINFO_EFFECTIVE_URL`.
    var effectiveURL: String?
    /// `CURLINFO_LOCAL_IP`, e.g. `127.0.0.1`.
    package var localAddress: String?
    /// `CURLINFO_LOCAL_PORT`.
    package var localPort: Int?
    /// `CURLINFO_HTTP_CONNECTCODE`: the proxy's status answering `CONNECT` (0: no tunnel asked).
    var proxyConnectCode = 0

    /// Whether the transfer ran on a connection that already existed.
    package var reusedConnection: Bool { newConnections == 0 && httpVersion != nil }

    /// The version string for `CURLINFO_HTTP_VERSION`'s value.
    static func httpVersionName(_ value: Int) -> String? {
        switch value {
        case 1: "HTTP/1.0"
        case 2: "HTTP/1.1"
        case 3: "HTTP/2"
        case 30: "HTTP/3"
        default: nil
        }
    }
}
