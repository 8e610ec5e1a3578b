import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The manager as the sink of URLSession's callbacks. They arrive on the delegate queue, which is
/// the actor's executor on this transport, so each enters the actor synchronously, in order.
extension SessionManager: URLSessionEventSink {
    package nonisolated func urlSessionAttempt(_ id: AttemptID, didReceive response: URLResponse) {
        assumeIsolated { $0.taskDidReceive(response: response, attemptID: id) }
    }

    package nonisolated func urlSessionAttempt(_ id: AttemptID, didReport event: AttemptEvent) {
        assumeIsolated { $0.attempt(id, didReport: event) }
    }

    /// Answered on the manager's executor whichever thread asks (FoundationNetworking waits for
    /// the answer on its own queue).
    package nonisolated func urlSessionAttempt(_ id: AttemptID, needsNewBodyStream completion: @escaping @Sendable (InputStream?) -> Void) {
        perform { $0.taskNeedsNewBodyStream(attemptID: id, completion: completion) }
    }

    package nonisolated func urlSessionAttempt(
        _ task: URLSessionDataTask, willCache proposed: CachedURLResponse,
        completion: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        assumeIsolated { $0.taskWillCache(proposed, task: task, completion: completion) }
    }

    package nonisolated func urlSessionDidBecomeInvalid(error: (any Error)?) {
        assumeIsolated { $0.sessionDidBecomeInvalid(error: error) }
    }
}
