import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What happened to one of a manager's transfers, as seen by an observer of *every* transfer
/// (``SessionManager/transferActivity(bufferingNewest:includingData:)``) — AFNetworking's manager-wide blocks
/// (`setTaskDidCompleteBlock:`, `setDataTaskDidReceiveResponseBlock:`, ...) and its task
/// notifications, as one ordered stream.
///
/// Events of one transfer arrive in the order they happened. Progress is *throttled*: one event
/// per 2 % of the expected total (at least 64 KiB; 1 MiB when the total is unknown), or after a
/// second for a slow transfer that moved less — about fifty per transfer, never one per chunk — and
/// the last progress event before ``completed(_:)`` always reports every byte transferred.
public enum TransferActivity: Sendable {
    /// The transfer started, or started again after a pause (AFNetworking's
    /// `AFNetworkingTaskDidResumeNotification`): posted when its state changes, not per attempt —
    /// a redirect (see ``redirected(_:response:newRequest:)``), a credential retry or a 307/308
    /// re-send inside a running transfer posts nothing, on every transport.
    case started(TransferID, URLRequest)
    /// The transfer was paused, or held before it started (`AFNetworkingTaskDidSuspendNotification`),
    /// when its state changes.
    case suspended(TransferID)
    /// The final response head (1xx skipped; a 401 answered with a credential is replaced by the
    /// retry's) — `setDataTaskDidReceiveResponseBlock:`, after the response hook allowed it.
    case response(TransferID, HTTPURLResponse)
    /// Request body bytes sent so far (`setTaskDidSendBodyDataBlock:`), throttled.
    case uploadProgress(TransferID, TransferProgress)
    /// Response body bytes received so far (`setDataTaskDidReceiveDataBlock:`,
    /// `setDownloadTaskDidWriteDataBlock:`), throttled. For a download: bytes on disk out of the
    /// whole file, counting bytes kept from an earlier attempt.
    case downloadProgress(TransferID, TransferProgress)
    /// A download continued from `offset` bytes already on disk, out of `expectedTotal` when known
    /// (`setDownloadTaskDidResumeBlock:`): the server's 206 was accepted.
    case downloadResumed(TransferID, offset: Int64, expectedTotal: Int64?)
    /// A redirect is being followed (`setTaskWillPerformHTTPRedirectionBlock:`, as a notification):
    /// the 3xx response and the request that will be sent.
    case redirected(TransferID, response: HTTPURLResponse, newRequest: URLRequest)
    /// The transfer ended (`setTaskDidCompleteBlock:`, `setDownloadTaskDidFinishDownloadingBlock:`,
    /// `AFNetworkingTaskDidCompleteNotification`). The transfer's last event.
    case completed(TransferCompletion)
    /// The manager was invalidated (`setSessionDidBecomeInvalidBlock:`): `nil` when you invalidated
    /// it, else the error that did. The stream's last event.
    case invalidated(NetworkingError?)
    /// A chunk of a transfer's response body, as it arrived (decoded) — AFNetworking's
    /// `setDataTaskDidReceiveDataBlock:` for every transfer. Only for a stream that asked for it
    /// (``SessionManager/transferActivity(bufferingNewest:includingData:)`` with
    /// `includingData: true`); never built otherwise. Like every event it is dropped, and counted,
    /// when the reader is `bufferingNewest` events behind, so a reader that must see every byte
    /// keeps up or uses a large buffer — the transfer itself is never slowed.
    case data(TransferID, Data)

    /// The transfer the event is about; `nil` for ``invalidated(_:)``.
    public var transferID: TransferID? {
        switch self {
        case .started(let id, _), .suspended(let id), .response(let id, _), .uploadProgress(let id, _),
             .downloadProgress(let id, _), .downloadResumed(let id, _, _), .redirected(let id, _, _), .data(let id, _):
            return id
        case .completed(let completion): return completion.id
        case .invalidated: return nil
        }
    }
}

/// How a transfer ended, for ``TransferActivity/completed(_:)``.
public struct TransferCompletion: Sendable {
    /// The transfer.
    public let id: TransferID
    /// Data, upload or download.
    public let kind: TransferKind
    /// The request the transfer was created with.
    public let originalRequest: URLRequest
    /// The final response, when one arrived (also on most failures: a status error carries it).
    public let response: HTTPURLResponse?
    /// A download's file at its destination; `nil` for other transfers and on failure (a kept
    /// partial file is named by the error's ``NetworkingError/fileURL``).
    public let fileURL: URL?
    /// `nil` on success; what the transfer's caller saw otherwise — for an ``HTTPClient`` call,
    /// after validation and serialization (a `500` is ``NetworkingError/Kind/unacceptableStatusCode(_:)``,
    /// a body that does not decode ``NetworkingError/Kind/responseSerializationFailed``).
    public let error: NetworkingError?
    /// Bytes and timings, when the transfer ran.
    public let metrics: TransferMetrics?
    /// The value the caller got from the response serializer (AFNetworking's
    /// `AFNetworkingTaskDidCompleteSerializedResponseKey`): set for a successful ``HTTPClient``
    /// call (verbs, `task`, `upload`, `download`, `send`), `nil` for a manager call — whose caller
    /// gets the raw body — and on failure. Cast it to the type the call asked for
    /// (`done.serializedValue as? User`).
    public internal(set) var serializedValue: (any Sendable)? = nil
}

/// The stream returned by ``SessionManager/transferActivity(bufferingNewest:includingData:)``: every transfer's
/// ``TransferActivity``, with a count of events dropped because this reader was behind.
///
/// Events are handed over without ever waiting for the reader: a reader more than its buffer
/// (`bufferingNewest`) behind loses the *oldest* events, counted in ``droppedCount``. A transfer is
/// never slowed by a slow reader, and with no reader no event is even built.
public struct TransferActivityStream: AsyncSequence, Sendable {
    /// One event.
    public typealias Element = TransferActivity
    /// The stream never throws.
    public typealias Failure = Never

    let stream: AsyncStream<TransferActivity>
    let drops: ActivityDropCounter

    /// Events this reader lost because its buffer was full (oldest first). Readable at any time.
    public var droppedCount: Int { drops.value }

    /// Creates the iterator (iterate once).
    public func makeAsyncIterator() -> AsyncStream<TransferActivity>.Iterator {
        stream.makeAsyncIterator()
    }
}
