import BenchmarkSupport
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The fairest raw baseline for small requests: one session delegate that collects each task's body
/// and resumes its caller at `didCompleteWithError` — what AsyncNetworking does, minus everything
/// else it does. (Completion-handler tasks, like `URLSession.data(for:)`, hang forever on a 401 with
/// `WWW-Authenticate` on Linux; a delegate that answers the challenge does not.)
final class RawDelegateClient: Sendable {
    let session: URLSession
    private let delegate: CollectingDelegate

    init(configuration: URLSessionConfiguration) {
        let delegate = CollectingDelegate()
        self.delegate = delegate
        // A nil delegate queue: URLSession makes its own serial OperationQueue.
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    /// Loads `request`; returns the whole body and the response.
    func data(for request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let task = session.dataTask(with: request)
        return try await withUnsafeThrowingContinuation { continuation in
            delegate.register(task.taskIdentifier, continuation)
            task.resume()
        }
    }

    func invalidate() {
        session.invalidateAndCancel()
    }
}

/// Per-task bodies by task identifier, behind a `Mutex` (registration happens on the caller's
/// thread, callbacks on the delegate queue).
private final class CollectingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias Continuation = UnsafeContinuation<(Data, HTTPURLResponse), any Error>

    private struct Pending {
        let continuation: Continuation
        var body = Data()
        var response: HTTPURLResponse?
    }

    private let pending = Mutex<[Int: Pending]>([:])

    func register(_ taskIdentifier: Int, _ continuation: Continuation) {
        pending.withLock { $0[taskIdentifier] = Pending(continuation: continuation) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
        pending.withLock { $0[dataTask.taskIdentifier]?.response = response as? HTTPURLResponse }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            entry.continuation.resume(throwing: error)
        } else if let response = entry.response {
            entry.continuation.resume(returning: (entry.body, response))
        } else {
            entry.continuation.resume(throwing: BenchmarkError("no HTTP response"))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Without this a 401 hangs forever on Linux.
        completionHandler(.cancelAuthenticationChallenge, nil)
    }
}
