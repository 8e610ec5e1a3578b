import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session-wide notification, replacing AFNetworking's `AFNetworkingTaskDidResumeNotification`,
/// `AFNetworkingTaskDidSuspendNotification` and `AFNetworkingTaskDidCompleteNotification`.
///
/// Read them from ``SessionManager/sessionEvents(bufferingNewest:)``.
public enum SessionEvent: Sendable {
    /// A transfer started, or started again after a pause: posted when its state changes to
    /// running, never per attempt (a redirect, a credential retry or a re-send inside a running
    /// transfer posts nothing, on every transport), as AFNetworking posts
    /// `AFNetworkingTaskDidResumeNotification`. The request is the one its attempt sent.
    case transferResumed(TransferID, URLRequest)
    /// A transfer was paused or held before it started (posted when its state changes to
    /// suspended; a new attempt of a transfer paused in place posts nothing).
    case transferSuspended(TransferID)
    /// A transfer ended; the error is `nil` on success.
    case transferCompleted(TransferID, NetworkingError?)
    /// The session was invalidated; no transfer can start any more. The last event.
    case invalidated
}
