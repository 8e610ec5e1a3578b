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
    /// Read from an `AsyncSequence` as it is sent (chunked, curl only); see `SequenceBody`.
    case sequence(SequenceBody)
}

/// The per-transfer state AFNetworking kept in `AFURLSessionManagerTaskDelegate`, owned by the
/// ``SessionManager`` actor (never shared outside it): the transfer's ``LiveTransferStateMachine``
/// (its logic) and what the I/O shell keeps beside it (the sink, the attempt, counters, the head).
/// The manager's registry maps ``TransferID``s and transport attempt identifiers to these.
final class TransferState {
    /// Where the transfer stands, as the registry and the transports see it (the
    /// ``LiveTransferStateMachine`` knows the details: deciding, pausing, cancelling…).
    enum Phase: Equatable {
        /// Registered, not started: held by `startsImmediately: false` or a suspension, or
        /// queued behind the manager's concurrency limit.
        case waiting
        /// An attempt is under way (running, deciding, being replaced, paused or cancelled).
        case running
        /// Finished; the sink has been told. Removed from the registry.
        case finished
    }

    /// How a cancel reaches a URLSession task whose redirect or challenge was just answered.
    enum CancelStyle {
        /// Cancel the attempt now.
        case now
        /// Do not: the task ends by itself (a refused redirect, a cancelled challenge).
        case none
        /// Cancel in a later job, after the answer (a redirect the manager re-sends itself).
        case afterAnswer
    }

    let id: TransferID
    let originalRequest: URLRequest
    /// What the transfer sends; becomes `.none` when a redirect turns it into a GET.
    var upload: UploadSource
    let options: TransferOptions
    /// Where results go; replaced once when a data transfer becomes a download.
    var sink: any TransferSink

    /// The per-transfer logic: redirects, challenges, the response hook, limits, re-sends,
    /// pause, suspension in place, cancellation and invalidation (a pure value; the manager's
    /// `run(_:for:)` performs what it returns).
    var machine: LiveTransferStateMachine
    /// When ``TransferOptions/deadline`` ends the transfer, fixed at registration; and the timer
    /// that enforces it (cancelled when the transfer finishes). See SessionManager+Deadlines.
    var deadline: ContinuousClock.Instant?
    var deadlineTimer: DispatchWorkItem?
    /// What the session streams were last told of this transfer: `nil` before anything,
    /// `true` running (``SessionEvent/transferResumed(_:_:)``), `false` suspended. Events are
    /// posted only when it changes (``SessionManager/announce(_:running:request:)``).
    var announcedRunning: Bool?
    /// Set once the sink has been told the end (``SessionManager/finish(_:_:)``).
    private(set) var isFinished = false
    /// The running attempt on the manager's transport, and the machine's number for it.
    var task: (any TransportTask)?
    /// The machine's number of ``task``.
    var machineAttempt: TransferAttemptID?
    /// The delegate queue whose gate must be open while calling into URLSession.
    private var gate: DelegateQueue?
    /// The error the current attempt's completion reports, whatever the transport says: a body
    /// that could not be read, a trust failure, a producer that made no new stream.
    var attemptFailure: NetworkingError?
    /// URLSession's redirect question, while the machine decides it.
    var redirectAnswer: (@Sendable (URLRequest?) -> Void)?
    /// URLSession's challenge, while the machine decides it.
    var challengeAnswer: (@Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void)?
    /// URLSession's challenge being decided (`nil` when the Session layer raises its own).
    var challenge: URLAuthenticationChallenge?
    /// How the next ``LiveTransferStateMachine/Action/cancelAttempt(_:armWatchdog:)`` stops the
    /// attempt (``CancelStyle``); reset to `.now` once used.
    var nextCancel = CancelStyle.now
    /// A download sink asked for the current request to be sent again (without `Range`) once
    /// this attempt has been stopped.
    var restartRequested = false
    /// The response hook's `becomeDownload` target, until the machine applies it.
    var pendingDownload: (destination: DownloadDestination, options: DownloadOptions)?
    /// The body stream the current task reads (streamed uploads), to learn afterwards whether
    /// reading it failed — URLSession does not say why a body ended early.
    var bodyStream: InputStream?
    /// The pump feeding the current attempt from an `AsyncSequence` body (curl), stopped when
    /// the attempt is replaced or the transfer ends.
    var sequencePump: SequenceBodyPump?
    /// The stream the next attempt of a streamed upload sends, made by its producer in `launch`.
    var pendingBodyStream: InputStream?

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
    /// Trailer fields the current attempt received after its body.
    var trailers: [(name: String, value: String)] = []

    /// The registry's view of the machine's phase.
    var phase: Phase {
        if isFinished { return .finished }
        switch machine.phase {
        case .waiting: return .waiting
        case .finished: return .finished
        case .running, .deciding, .resending, .pausing, .cancelling: return .running
        }
    }

    /// Held by `startsImmediately: false` or a suspension (the scheduler does not know it).
    var isHeld: Bool {
        if case .waiting(held: true) = machine.phase { return true }
        return false
    }

    /// The request the next attempt sends (changed by a followed redirect).
    var currentRequest: URLRequest {
        get { machine.currentRequest }
        set { machine.currentRequest = newValue }
    }

    /// Redirects followed so far.
    var redirectCount: Int { machine.redirectCount }

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
    /// The last attempt's connection metrics, when the transport measures them.
    var connectionMetrics: ConnectionMetrics?
    /// The credential that answered a challenge, sent with later attempts to its origin only.
    var credential: ScopedCredential?
    /// The credential the challenge hook gave for a proxy's 407, sent to that proxy only.
    var proxyCredential: ScopedProxyCredential?

    var startDate = Date()
    var startInstant = ContinuousClock.now
    var responseInstant: ContinuousClock.Instant?
    var firstByteInstant: ContinuousClock.Instant?

    init(
        id: TransferID, request: URLRequest, upload: UploadSource, options: TransferOptions, sink: any TransferSink,
        configuration: LiveTransferStateMachine.Configuration
    ) {
        self.id = id
        self.originalRequest = request
        self.upload = upload
        self.options = options
        self.sink = sink
        self.machine = LiveTransferStateMachine(request: request, held: !options.startsImmediately, configuration: configuration)
        self.expectedToSend = Self.declaredBodyLength(of: request, upload: upload)
    }

    /// Whether the body can be sent again (to follow a 307/308 ourselves).
    var hasReplayableBody: Bool {
        switch upload {
        case .none: return currentRequest.httpBody != nil
        case .data, .file: return true
        case .stream, .sequence: return true
        }
    }

    /// Hands the next attempt's body stream over, once.
    func takePendingBodyStream() -> InputStream? {
        defer { pendingBodyStream = nil }
        return pendingBodyStream
    }

    /// Marks the start of a (new) transport attempt for this transfer.
    func didStart(_ task: any TransportTask, attempt: TransferAttemptID, gate: DelegateQueue?) {
        self.task = task
        self.machineAttempt = attempt
        self.gate = gate
        startDate = Date()
        startInstant = .now
    }

    /// Marks the transfer finished (the sink is told next), once.
    /// - Returns: whether it was not finished before.
    func markFinished() -> Bool {
        guard !isFinished else { return false }
        isFinished = true
        return true
    }

    /// Cancels the current transport attempt (it confirms with a completion).
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
        case .sequence:
            break
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
