import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a transfer's results go. Every method is called on the ``SessionManager``'s executor, in
/// the order URLSession delivered the events (1xx responses already filtered out, held-back
/// authentication responses already resolved).
protocol TransferSink: AnyObject {
    /// Whether to compute and send progress (the data(for:) collector does not need it).
    var wantsProgress: Bool { get }
    /// The final response head. Returning an error fails and cancels the transfer.
    func didReceiveResponse(for transfer: TransferState) -> NetworkingError?
    /// The next body chunk. Returning an error fails and cancels the transfer.
    func didReceive(data: Data, for transfer: TransferState) -> NetworkingError?
    /// Progress in one direction (only when ``wantsProgress``).
    func didProgress(_ progress: TransferProgress, upload: Bool)
    /// The end, exactly once. Returns the outcome the caller sees (a download can still fail here,
    /// moving its file), for the session-wide ``SessionEvent/transferCompleted(_:_:)``.
    func didFinish(_ result: Result<TransferMetrics, NetworkingError>, for transfer: TransferState) -> FinishOutcome

    /// The request to send for the next URLSession task of this transfer (the first, or one after
    /// a pause): a resumable download adds `Range`/`If-Range` here. Throwing fails the transfer.
    func request(forLaunching request: URLRequest, transfer: TransferState) throws(NetworkingError) -> URLRequest
    /// Whether a running transfer can be paused (its URLSession task stopped and a new one started
    /// later without corrupting the result). Data streams cannot; file downloads can.
    var supportsPause: Bool { get }
    /// The running task was stopped for a pause; the transfer waits for ``TransferHandle/resume()``.
    func didPause(transfer: TransferState)

    /// For a transport with per-transfer flow control (curl): how many bytes may be delivered
    /// ahead of the consumer before the transfer pauses its receive side, or `nil` when this sink
    /// needs no flow control. `report` is to be called with the running total of body bytes the
    /// consumer has read, now and then, from any thread.
    func flowControlWindow(report: @escaping @Sendable (Int64) -> Void) -> Int?
    /// The body bytes the consumer has read so far (for ``flowControlWindow(report:)``).
    var consumedBytes: Int64 { get }

    /// Download progress as the manager-wide activity stream reports it, or `nil` for the
    /// transfer's own counters (a download reports bytes on disk out of the whole file).
    func observedDownloadProgress(for transfer: TransferState) -> TransferProgress?
    /// Set by the last ``didReceiveResponse(for:)`` when it continued bytes already on disk
    /// (a download's accepted 206): the offset and the expected total.
    var lastResumption: (offset: Int64, expectedTotal: Int64?)? { get }
    /// The response the caller got, when the sink knows better than the transfer (a download).
    var completedResponse: HTTPURLResponse? { get }
    /// A finished download's file at its destination.
    var completedFileURL: URL? { get }
}

/// What a sink made of a transfer's end.
enum FinishOutcome {
    /// The caller was told: success (`nil`) or this error.
    case now(NetworkingError?)
    /// The sink finishes off the executor (a copy across file systems) and reports through its
    /// own reporter when done.
    case later

    init(_ result: Result<TransferMetrics, NetworkingError>) {
        switch result {
        case .success: self = .now(nil)
        case .failure(let error): self = .now(error)
        }
    }
}

extension TransferSink {
    /// The failure of a head Foundation refuses to represent as an `HTTPURLResponse`.
    static func unrepresentable(_ transfer: TransferState) -> NetworkingError {
        NetworkingError(.transport(.badServerResponse), "the response head cannot be represented as an HTTPURLResponse", request: transfer.originalRequest)
    }

    func request(forLaunching request: URLRequest, transfer: TransferState) throws(NetworkingError) -> URLRequest {
        request
    }
    var supportsPause: Bool { false }
    func didPause(transfer: TransferState) {}
    func flowControlWindow(report: @escaping @Sendable (Int64) -> Void) -> Int? { nil }
    var consumedBytes: Int64 { 0 }
    func observedDownloadProgress(for transfer: TransferState) -> TransferProgress? { nil }
    var lastResumption: (offset: Int64, expectedTotal: Int64?)? { nil }
    var completedResponse: HTTPURLResponse? { nil }
    var completedFileURL: URL? { nil }
}

/// Feeds a transfer into an ``EventChannel`` for its ``TransferEvents`` consumer.
final class ChannelSink: TransferSink {
    let channel: EventChannel

    /// Cleared when another sink took the channel over (a data transfer that became a download).
    private var ownsChannel = true
    /// Whether the transfer may be paused for its reader (a receive window on curl); `false` for
    /// a body its one reader collects whole (``TransferOptions/collectsWholeBody``).
    private let flowControlled: Bool

    init(channel: EventChannel, flowControlled: Bool = true) {
        self.channel = channel
        self.flowControlled = flowControlled
    }

    /// Released before the transfer finished: its manager is gone. The stream ends instead of
    /// waiting forever (a no-op when it already ended).
    deinit {
        guard ownsChannel else { return }
        channel.fail(NetworkingError(.sessionInvalidated, "the session manager was released"))
    }

    /// Hands the channel to another sink: this one no longer ends it.
    func releaseChannel() -> EventChannel {
        ownsChannel = false
        return channel
    }

    var wantsProgress: Bool { true }

    func didReceiveResponse(for transfer: TransferState) -> NetworkingError? {
        guard let response = transfer.response else { return Self.unrepresentable(transfer) }
        channel.send(.response(response))
        return nil
    }

    func didReceive(data: Data, for transfer: TransferState) -> NetworkingError? {
        channel.send(data: data)
    }

    func didProgress(_ progress: TransferProgress, upload: Bool) {
        channel.send(progress: progress, upload: upload)
    }

    func flowControlWindow(report: @escaping @Sendable (Int64) -> Void) -> Int? {
        flowControlled ? channel.flowControlWindow(report: report) : nil
    }

    var consumedBytes: Int64 { channel.consumedBytes }

    func didFinish(_ result: Result<TransferMetrics, NetworkingError>, for transfer: TransferState) -> FinishOutcome {
        switch result {
        case .success(let metrics): channel.finish(metrics)
        case .failure(let error): channel.fail(error)
        }
        return FinishOutcome(result)
    }
}

/// What a ``CollectorSink`` hands its caller: the body and the native head. The caller makes the
/// `HTTPURLResponse` on its own thread (``makeResult()``), not on the manager's executor.
struct CollectedResponse: Sendable {
    var body: Data
    var head: ResponseHead
    var url: URL

    /// `(body, response)`, the response made from the head (or reused when already made).
    func makeResult(request: URLRequest) throws(NetworkingError) -> (Data, HTTPURLResponse) {
        guard let response = head.makeHTTPURLResponse(url: url) else {
            throw NetworkingError(.transport(.badServerResponse), "the response head cannot be represented as an HTTPURLResponse", request: request)
        }
        return (body, response)
    }
}

/// Collects a whole body in memory and resumes one awaiting caller: the fast path behind
/// ``SessionManager/data(for:options:)`` (one wake-up per request instead of one per event).
final class CollectorSink: TransferSink {
    typealias Continuation = UnsafeContinuation<CollectedResponse, any Error>

    private var continuation: Continuation?
    private var body = Data()

    init(continuation: Continuation) { self.continuation = continuation }

    var wantsProgress: Bool { false }

    func didReceiveResponse(for transfer: TransferState) -> NetworkingError? {
        body = Data()
        // What the body will be (0 for a HEAD, a 204 or a 304, whatever Content-Length says).
        if let expected = transfer.expectedToReceive, expected > 0 {
            body.reserveCapacity(Int(min(expected, 64 << 20)))
        }
        return nil
    }

    func didReceive(data: Data, for transfer: TransferState) -> NetworkingError? {
        body.append(data)
        return nil
    }

    func didProgress(_ progress: TransferProgress, upload: Bool) {}

    func didFinish(_ result: Result<TransferMetrics, NetworkingError>, for transfer: TransferState) -> FinishOutcome {
        guard let continuation else { return FinishOutcome(result) }
        self.continuation = nil
        defer { body = Data() }
        switch result {
        case .success:
            if var head = transfer.head {
                // Reuse an HTTPURLResponse something already made (an observer, a hook).
                if head.foundationResponse == nil, transfer.hasMadeResponse { head.foundationResponse = transfer.response }
                let url = transfer.headURL ?? transfer.currentRequest.url ?? transfer.originalRequest.url!
                continuation.resume(returning: CollectedResponse(body: body, head: head, url: url))
                return .now(nil)
            }
            let error = NetworkingError(
                .transport(.badServerResponse), "the transfer ended without an HTTP response",
                request: transfer.originalRequest
            )
            continuation.resume(throwing: error)
            return .now(error)
        case .failure(let error):
            let error = error.adding(response: transfer.response, body: body.isEmpty ? nil : body)
            continuation.resume(throwing: error)
            return .now(error)
        }
    }
}
