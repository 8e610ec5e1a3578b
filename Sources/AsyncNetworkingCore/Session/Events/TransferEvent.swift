import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One event in the life of a transfer, as delivered by ``TransferEvents``.
///
/// Events of one transfer arrive in the order they happened: upload progress (if there is a body),
/// the final response (`1xx` interim responses are skipped), data chunks and download progress,
/// for downloads the file, the response's ``trailers(_:)`` when it had any, and finally
/// ``completed(_:)``. A failure is not an event: the sequence throws a ``NetworkingError`` instead.
/// On the curl transport a streamed request body is still being sent while the response's events
/// arrive (full duplex): upload progress can follow the response and its data.
///
/// Progress events are *coalesced*: if several arrive before you read one, you get only the newest.
/// They report what the network has sent or delivered, which can run ahead of the data chunks you
/// have read. Data events are never dropped or merged out of order.
///
/// New events can be added in a minor release: the enum is `@nonexhaustive` (SE-0487), so a
/// `switch` over it outside this package ends with `@unknown default:` (the compiler asks for it).
@nonexhaustive
public enum TransferEvent: Sendable {
    /// Bytes of the request body sent so far.
    case uploadProgress(TransferProgress)
    /// The final HTTP response head (status and headers). Delivered once, before any data.
    case response(HTTPURLResponse)
    /// The next chunk of the response body, in order.
    case data(Data)
    /// Bytes of the response body received so far.
    case downloadProgress(TransferProgress)
    /// A download's body is complete in the file at this URL (download transfers only).
    case downloaded(URL)
    /// The trailer fields that followed the response body (RFC 9110 §6.5: a checksum,
    /// `Server-Timing`, a gRPC status), repeated names joined with `, `: after the last
    /// ``data(_:)``, right before ``completed(_:)``, and only when the server sent some. The same
    /// fields are in ``TransferMetrics/trailers``. Delivered by the curl transport (HTTP/1.1
    /// chunked bodies and HTTP/2); never on URLSession, whose FoundationNetworking drops trailers.
    case trailers(HTTPHeaders)
    /// The transfer finished successfully; the last event.
    case completed(TransferMetrics)
}

/// How far a transfer in one direction has got.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes transferred so far, counted by AsyncNetworking itself (URLSession's counters are
    /// unreliable on Linux).
    public var completedBytes: Int64
    /// Bytes expected in total, or `nil` when unknown (no `Content-Length`, a chunked or compressed body).
    public var expectedBytes: Int64?

    /// Creates a progress value.
    public init(completedBytes: Int64, expectedBytes: Int64?) {
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
    }

    /// `completedBytes / expectedBytes` clamped to 0...1, or `nil` when the total is unknown.
    public var fractionCompleted: Double? {
        guard let expectedBytes, expectedBytes > 0 else { return nil }
        return min(1, max(0, Double(completedBytes) / Double(expectedBytes)))
    }
}

/// Timing and byte counts of one transfer, measured by AsyncNetworking (URLSession's task metrics are
/// never delivered on Linux).
public struct TransferMetrics: Sendable, Hashable {
    /// Wall-clock time the transfer was started (its URLSession task resumed).
    public var startDate: Date
    /// Time from start to the final response head, or `nil` if none arrived.
    public var timeToResponse: Duration?
    /// Time from start to the first body byte, or `nil` if the body was empty.
    public var timeToFirstByte: Duration?
    /// Time from start to completion.
    public var duration: Duration
    /// Request body bytes sent.
    public var bytesSent: Int64
    /// Response body bytes received (after decompression).
    public var bytesReceived: Int64
    /// How many redirects were followed.
    public var redirectCount: Int
    /// The last attempt's connection, as the transport measured it: on the curl transport from
    /// libcurl's `CURLINFO_*`; `nil` on URLSession (which reports no metrics on Linux).
    public var connection: ConnectionMetrics?
    /// Where the response came from when an ``HTTPCache`` handled the request (see
    /// ``HTTPClient/cache``): a fresh hit, a revalidation, or the network. `nil` when no cache was
    /// consulted. A response served from the cache has zero ``bytesSent`` and ``bytesReceived``.
    public var cacheOutcome: HTTPCacheOutcome?
    /// Trailer fields that followed the body (RFC 9110 §6.5: e.g. a checksum or `Server-Timing`
    /// after a chunked HTTP/1.1 body), repeated names joined with `, `; empty when the server sent
    /// none. Delivered by the curl transport; FoundationNetworking's URLSession drops trailers.
    public var trailers = HTTPHeaders()

    /// Creates a metrics value.
    public init(
        startDate: Date, timeToResponse: Duration?, timeToFirstByte: Duration?, duration: Duration,
        bytesSent: Int64, bytesReceived: Int64, redirectCount: Int, connection: ConnectionMetrics? = nil
    ) {
        self.connection = connection
        self.startDate = startDate
        self.timeToResponse = timeToResponse
        self.timeToFirstByte = timeToFirstByte
        self.duration = duration
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.redirectCount = redirectCount
    }
}
