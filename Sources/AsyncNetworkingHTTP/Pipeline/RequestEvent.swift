import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives every step of every pipeline request (Alamofire's `EventMonitor`).
///
/// ``receive(_:)`` is called on the request's own task, in order, as each step happens; keep it
/// quick and non-blocking (hand slow work to your own task or actor). Monitors are set in
/// ``PipelineConfiguration/monitors``; ``LoggingMonitor`` is ready-made.
public protocol EventMonitor: Sendable {
    /// One step of one request.
    func receive(_ event: RequestEvent)
}

/// A monitor made of a closure.
public struct ClosureEventMonitor: EventMonitor {
    private let body: @Sendable (RequestEvent) -> Void

    /// A monitor that calls `body` for every event.
    public init(_ body: @escaping @Sendable (RequestEvent) -> Void) { self.body = body }

    /// Calls the closure.
    public func receive(_ event: RequestEvent) { body(event) }
}

/// One step in the life of a pipeline request. For one request the order is:
/// for each attempt `adapted`, `started`, then either `attemptFailed`, or
/// [`redirected`], `response`, [`challenged`]; then `retryScheduled` before another attempt;
/// and last, once, `completed`.
public enum RequestEvent: Sendable {
    /// The adapters ran; this request is about to be sent.
    case adapted(RequestID, attempt: Int, URLRequest)
    /// The attempt was handed to the transport.
    case started(RequestID, attempt: Int, URLRequest)
    /// The attempt followed `count` redirects and ended at `finalURL` (reported when its response
    /// arrives, from the transfer's metrics).
    case redirected(RequestID, attempt: Int, count: Int, finalURL: URL?)
    /// The attempt's final response arrived (any status).
    case response(RequestID, attempt: Int, HTTPURLResponse, TransferMetrics)
    /// The response is a 401 or 407: the server asked for (other) credentials.
    case challenged(RequestID, attempt: Int, HTTPURLResponse)
    /// The attempt failed without a usable response (transport error, cancellation, deadline).
    case attemptFailed(RequestID, attempt: Int, NetworkingError)
    /// Another attempt follows after `delay`, because of `reason` (for a credential refresh, the 401).
    case retryScheduled(RequestID, attempt: Int, delay: Duration, reason: NetworkingError)
    /// The request ended after `attempts` attempts: its final request and response, or its error,
    /// and the last attempt's metrics when it had a response.
    case completed(RequestID, attempts: Int, Result<HTTPURLResponse, NetworkingError>, TransferMetrics?)

    /// The request the event belongs to.
    public var requestID: RequestID {
        switch self {
        case .adapted(let id, _, _), .started(let id, _, _), .redirected(let id, _, _, _),
             .response(let id, _, _, _), .challenged(let id, _, _), .attemptFailed(let id, _, _),
             .retryScheduled(let id, _, _, _), .completed(let id, _, _, _):
            id
        }
    }

    /// The event's name: `adapted`, `started`, `redirected`, `response`, `challenged`,
    /// `attemptFailed`, `retryScheduled` or `completed`.
    public var name: String {
        switch self {
        case .adapted: "adapted"
        case .started: "started"
        case .redirected: "redirected"
        case .response: "response"
        case .challenged: "challenged"
        case .attemptFailed: "attemptFailed"
        case .retryScheduled: "retryScheduled"
        case .completed: "completed"
        }
    }
}
