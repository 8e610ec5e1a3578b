import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session-wide notification, replacing AFNetworking's `AFNetworkingTaskDidResumeNotification`,
/// `AFNetworkingTaskDidSuspendNotification` and `AFNetworkingTaskDidCompleteNotification`.
///
/// Read them from ``SessionManager/sessionEvents(bufferingNewest:)``.
public enum SessionEvent: Sendable {
    /// A transfer's URLSession task started (or started again, after a pause).
    case transferResumed(TransferID, URLRequest)
    /// A transfer was paused or held before it started.
    case transferSuspended(TransferID)
    /// A transfer ended; the error is `nil` on success.
    case transferCompleted(TransferID, NetworkingError?)
    /// The session was invalidated; no transfer can start any more. The last event.
    case invalidated
}
