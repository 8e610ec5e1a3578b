import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Identifies one attempt (one request on one connection) of a transfer, unique among the
/// attempts of a manager's transport. A transfer keeps its ``TransferID`` across attempts (a
/// redirect, a credential retry, a re-send, a resume); events of an earlier attempt are ignored.
package struct AttemptID: Hashable, Sendable, CustomStringConvertible {
    /// The transport's number for the attempt (a URLSession task identifier, a curl transfer number).
    let rawValue: UInt64

    package init(_ rawValue: UInt64) { self.rawValue = rawValue }

    /// A URLSession task's identifier.
    init(task identifier: Int) { rawValue = UInt64(bitPattern: Int64(identifier)) }

    package var description: String { "attempt#\(rawValue)" }
}

/// The seam between the Session layer and a transport: one running attempt. The manager finds the
/// attempt's transfer by ``attemptID`` and stops it with ``cancel()``; everything else (events,
/// decisions, limits, redirects, retries) lives in the Session layer and does not know which
/// transport runs.
package protocol TransportTask: AnyObject {
    /// Unique among the manager's attempts.
    var attemptID: AttemptID { get }
    /// Stops the attempt. The transport still reports its completion (as cancelled), on the
    /// manager's executor; nothing traps if the attempt already ended.
    func cancel()
}

extension URLSessionTask: TransportTask {
    package var attemptID: AttemptID { AttemptID(task: taskIdentifier) }
}

/// An attempt the transport can pause where it stands (libcurl's `curl_easy_pause`) — both its
/// receiving and its sending side — without ending it.
package protocol PausableInPlace: TransportTask {
    /// Pauses (`true`) or resumes (`false`) both directions.
    func setPaused(_ paused: Bool)
}
