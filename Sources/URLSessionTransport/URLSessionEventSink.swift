import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where ``SessionDelegate`` hands URLSession's callbacks: the Session layer (a `SessionManager`,
/// held weakly). Every method runs on the delegate queue, which is the sink's executor, so the
/// sink handles it synchronously and in order — except ``urlSessionAttempt(_:needsNewBodyStream:)``,
/// which FoundationNetworking may call from its own thread.
package protocol URLSessionEventSink: AnyObject, Sendable {
    /// A final response head arrived (1xx heads are not delivered).
    func urlSessionAttempt(_ id: AttemptID, didReceive response: URLResponse)
    /// Body bytes, upload progress, a completion, a proposed redirect or a challenge.
    func urlSessionAttempt(_ id: AttemptID, didReport event: AttemptEvent)
    /// URLSession must send a streamed body again and asks for a fresh stream (`nil`: none).
    func urlSessionAttempt(_ id: AttemptID, needsNewBodyStream completion: @escaping @Sendable (InputStream?) -> Void)
    /// URLSession proposes to cache a response; the answer is what to store (`nil`: nothing).
    func urlSessionAttempt(
        _ task: URLSessionDataTask, willCache proposed: CachedURLResponse,
        completion: @escaping @Sendable (CachedURLResponse?) -> Void
    )
    /// The session became invalid (`error` when it was not asked to).
    func urlSessionDidBecomeInvalid(error: (any Error)?)
}
