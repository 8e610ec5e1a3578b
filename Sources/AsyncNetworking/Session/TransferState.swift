import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A stable identifier for one transfer, unique within its ``SessionManager``.
///
/// It outlives any single URLSession task: a transfer that is paused and resumed with a `Range`
/// request, or re-sent after a redirect, keeps its `TransferID`.
public struct TransferID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number, increasing in creation order.
    public let rawValue: UInt64

    /// Wraps a raw value.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Creation order.
    public static func < (lhs: TransferID, rhs: TransferID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `transfer#N`.
    public var description: String { "transfer#\(rawValue)" }
}

/// What a transfer sends as its body.
enum UploadSource: Sendable {
    case none
    case data(Data)
    case file(URL)
    /// Read from an `InputStream` as it is sent (chunked); see `StreamedBody` in Transfers.
    case stream(StreamedBody)
}

/// The per-transfer state AFNetworking kept in `AFURLSessionManagerTaskDelegate`, owned by the
/// ``SessionManager`` actor (never shared outside it). The manager's registry maps ``TransferID``s
/// and URLSession task identifiers to these.
final class TransferState {
    enum Phase: Equatable {
        /// Registered, not started: held by `startsImmediately: false`, or queued behind the
        /// manager's concurrency limit.
        case waiting
        /// A URLSession task is running.
        case running
        /// Finished; the sink has been told. Removed from the registry.
        case finished
    }

    /// A callback held back while a decision is pending (an authentication retry, a response hook).
    enum Deferred {
        case response(ResponseHead)
        case data(Data)
        case complete((any Error)?)
    }

    let id: TransferID
    let originalRequest: URLRequest
    /// The request the next URLSession task sends (changed by an upload's 307/308 re-send).
    var currentRequest: URLRequest
    /// What the transfer sends; becomes `.none` when a redirect turns it into a GET.
    var upload: UploadSource
    let options: TransferOptions
    /// Where results go; replaced once when a data transfer becomes a download.
    var sink: any TransferSink

    var phase = Phase.waiting
    /// `true` while `startsImmediately: false` or a `suspend()` before start holds it back.
    var isHeld = false
    /// The running attempt on the manager's transport.
    var task: (any TransportTask)?
    /// The delegate queue whose gate must be open while calling into URLSession.
    private var gate: DelegateQueue?
    /// The error to report when URLSession confirms a cancellation we asked for.
    var cancellation: NetworkingError?
    /// While non-nil, delegate callbacks are appended here instead of processed.
    var deferred: [Deferred]?
    /// Set when the authentication challenge was refused: the 401/407 already received is final.
    var refusedChallenge = false
    /// A 401/407 held back until its challenge is answered (a credential retry replaces it).
    var pendingAuthentication: ResponseHead?
    /// A challenge the manager itself raised (curl) is being decided: the held-back 401/407 is
    /// not final just because its attempt ended.
    var challengePending = false
    /// Set while a running task is being stopped for a pause (its -999 is not the end).
    var isPausing = false
    /// Suspended where it stands (curl): the attempt runs on, paused, until resumed.
    var isSuspendedInPlace = false
    /// `resume()` arrived while the pause was still landing: start again as soon as it has.
    var resumeRequested = false
    /// The body stream the current task reads (streamed uploads), to learn afterwards whether
    /// reading it failed — URLSession does not say why a body ended early.
    var bodyStream: InputStream?
    /// The stream the next attempt of a streamed upload sends, made by its producer in `launch`.
    var pendingBodyStream: InputStream?
    /// An upload's 307/308 target: URLSession on Linux would drop the body, so the redirect is
    /// refused and the whole request re-sent here once the current task ends.
    var resendRequest: URLRequest?

    /// Data, upload or download, as declared by the call that created it (see ``kind``).
    var declaredKind: TransferKind?
    /// What the manager-wide activity stream was last told of each direction's progress.
    var uploadThrottle = ProgressThrottle()
    var downloadThrottle = ProgressThrottle()

    /// The current response head (native: what crossed the transport seam).
    var head: ResponseHead?
    /// The URL the head answered (the attempt's URL; URLSession's after its own redirects).
    var headURL: URL?
    /// The `HTTPURLResponse` made from ``head``, once something asked for it.
    private var madeResponse: HTTPURLResponse?
    /// Set once the current attempt reported its completion (even while a decision held it back).
    var attemptEnded = false
    /// Trailer fields the current attempt received after its body.
    var trailers: [(name: String, value: String)] = []

    /// The response as Foundation's type, made from ``head`` the first time it is asked for —
    /// only where a public API hands one out (an event, a hook, an error, a result), never on the
    /// path of a transfer that does not need one.
    var response: HTTPURLResponse? {
        if let madeResponse { return madeResponse }
        guard let head else { return nil }
        let made = head.makeHTTPURLResponse(url: headURL ?? currentRequest.url ?? originalRequest.url ?? URL(fileURLWithPath: "/"))
        madeResponse = made
        return made
    }

    /// Whether ``response`` was already made (or came from URLSession).
    var hasMadeResponse: Bool { madeResponse != nil }

    /// Records `head` as the current response.
    func setHead(_ head: ResponseHead, url: URL?) {
        self.head = head
        headURL = url
        madeResponse = head.foundationResponse
    }

    var bytesSent: Int64 = 0
    var bytesReceived: Int64 = 0
    var expectedToSend: Int64?
    var expectedToReceive: Int64?
    var redirectCount = 0
    /// The last attempt's connection metrics, when the transport measures them.
    var connectionMetrics: ConnectionMetrics?
    /// Credentials tried for this transfer (transports that answer challenges in the Session layer).
    var authenticationAttempts = 0
    /// The credential that answered a challenge, sent with later attempts to its origin only.
    var credential: ScopedCredential?

    var startDate = Date()
    var startInstant = ContinuousClock.now
    var responseInstant: ContinuousClock.Instant?
    var firstByteInstant: ContinuousClock.Instant?

    init(id: TransferID, request: URLRequest, upload: UploadSource, options: TransferOptions, sink: any TransferSink) {
        self.id = id
        self.originalRequest = request
        self.currentRequest = request
        self.upload = upload
        self.options = options
        self.sink = sink
        self.isHeld = !options.startsImmediately
        self.expectedToSend = Self.declaredBodyLength(of: request, upload: upload)
    }

    /// Whether the body can be sent again (to follow a 307/308 ourselves).
    var hasReplayableBody: Bool {
        switch upload {
        case .none: return currentRequest.httpBody != nil
        case .data, .file: return true
        case .stream: return true
        }
    }

    /// Hands the next attempt's body stream over, once.
    func takePendingBodyStream() -> InputStream? {
        defer { pendingBodyStream = nil }
        return pendingBodyStream
    }

    /// Marks the start of a (new) URLSession task for this transfer.
    func didStart(_ task: any TransportTask, gate: DelegateQueue?) {
        self.task = task
        self.gate = gate
        // What was decided about an earlier attempt's challenge does not carry over.
        attemptEnded = false
        refusedChallenge = false
        challengePending = false
        phase = .running
        startDate = Date()
        startInstant = .now
    }

    /// Cancels the current URLSession task (URLSession confirms with a -999 completion).
    func cancelTask() {
        guard let task else { return }
        if let gate { gate.bypassing { task.cancel() } } else { task.cancel() }
    }

    /// Forgets what an earlier attempt received (a 401 answered with a credential, a replaced response).
    func resetReceived() {
        head = nil
        madeResponse = nil
        trailers = []
        bytesReceived = 0
        expectedToReceive = nil
        responseInstant = nil
        firstByteInstant = nil
    }

    /// Timing and counters so far.
    func metrics(at end: ContinuousClock.Instant = .now) -> TransferMetrics {
        var metrics = TransferMetrics(
            startDate: startDate,
            timeToResponse: responseInstant.map { $0 - startInstant },
            timeToFirstByte: firstByteInstant.map { $0 - startInstant },
            duration: end - startInstant,
            bytesSent: bytesSent,
            bytesReceived: bytesReceived,
            redirectCount: redirectCount,
            connection: connectionMetrics
        )
        if !trailers.isEmpty { metrics.trailers = HTTPHeaders(trailerFields: trailers) }
        return metrics
    }

    var uploadProgress: TransferProgress {
        TransferProgress(completedBytes: bytesSent, expectedBytes: expectedToSend)
    }

    var downloadProgress: TransferProgress {
        let expected = expectedToReceive.flatMap { $0 >= bytesReceived ? $0 : nil }
        return TransferProgress(completedBytes: bytesReceived, expectedBytes: expected)
    }

    /// The body length known before sending: the upload's size, else the request's
    /// `Content-Length` (as AFNetworking falls back to it when URLSession reports unknown).
    static func declaredBodyLength(of request: URLRequest, upload: UploadSource) -> Int64? {
        switch upload {
        case .data(let data): return Int64(data.count)
        case .file(let url):
            if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber {
                return size.int64Value
            }
        case .none:
            if let body = request.httpBody { return Int64(body.count) }
        case .stream(let body):
            if let length = body.length { return length }
        }
        if let value = request.value(forHTTPHeaderField: "Content-Length"), let length = Int64(value) {
            return length
        }
        return nil
    }

    /// The body length the response declares, when it is the length of what we will count: a
    /// compressed body is decompressed by URLSession, so its `Content-Length` is not comparable.
    ///
    /// A response that has no body by definition — to a HEAD, or a 204 or 304 — expects 0 bytes,
    /// whatever its `Content-Length` says (for a HEAD that is the length of the resource).
    static func expectedBodyLength(of head: ResponseHead, method: String? = nil) -> Int64? {
        if hasNoBody(statusCode: head.statusCode, method: method) { return 0 }
        if let encoding = head.value(of: "Content-Encoding"), !encoding.isEmpty,
           !ResponseHead.sameName(encoding, "identity") { return nil }
        return head.contentLength
    }

    /// The same for a response URLSession made.
    static func expectedBodyLength(of response: HTTPURLResponse, method: String? = nil) -> Int64? {
        expectedBodyLength(of: ResponseHead(response), method: method)
    }

    /// Whether a response has no body by definition (RFC 9110 §6.4.1): a HEAD's, a 1xx, 204 or 304.
    static func hasNoBody(statusCode: Int, method: String?) -> Bool {
        if let method, ResponseHead.sameName(method, "HEAD") { return true }
        return statusCode < 200 || statusCode == 204 || statusCode == 304
    }

    /// The same for a response URLSession made.
    static func hasNoBody(_ response: HTTPURLResponse, method: String?) -> Bool {
        hasNoBody(statusCode: response.statusCode, method: method)
    }
}
