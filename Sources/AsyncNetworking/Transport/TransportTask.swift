import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The seam between the Session layer and a transport: one attempt of a transfer — a URLSession
/// task, or a transfer on the manager's curl loop. The manager routes the attempt's callbacks by
/// ``taskIdentifier`` and stops it with ``cancel()``; everything else (events, decisions, limits,
/// redirects, retries) lives in the Session layer and does not know which transport runs.
protocol TransportTask: AnyObject {
    /// Unique among the manager's attempts.
    var taskIdentifier: Int { get }
    /// Stops the attempt. The transport still reports its completion (as cancelled), on the
    /// manager's executor; nothing traps if the attempt already ended.
    func cancel()
}

extension URLSessionTask: TransportTask {}

/// An attempt the transport can pause where it stands (libcurl's `curl_easy_pause`) — both its
/// receiving and its sending side — without ending it.
protocol PausableInPlace: TransportTask {
    /// Pauses (`true`) or resumes (`false`) both directions.
    func setPaused(_ paused: Bool)
}
