import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one session-level URLSession delegate, routing every callback by task identifier into its
/// ``URLSessionEventSink`` — the `SessionManager` actor (per-task delegates are unreliable on Linux).
///
/// Callbacks arrive on the manager's own executor queue, so each enters the actor synchronously with
/// `assumeIsolated`. When the manager is gone its session has been invalidated and cancelled
/// (`SessionManager`'s deinit), so decisions are left unanswered: answering a cancelled task traps
/// FoundationNetworking, and the cancel ends the task.
package final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // reason: NSObject subclass; its one weak reference is attached once by the manager's init, before any task exists
    // reason: `manager` is written once in SessionManager.init, before the session can call back,
    // and read only on the delegate queue afterwards.
    private weak var manager: (any URLSessionEventSink)?

    package override init() { super.init() }

    /// Sends every callback to `sink`, the manager (called once, from its init).
    package func attach(_ sink: any URLSessionEventSink) { manager = sink }

    // MARK: Task lifecycle

    package func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // The disposition is ignored on Linux; cancellation goes through task.cancel().
        completionHandler(.allow)
        manager?.urlSessionAttempt(dataTask.attemptID, didReceive: response)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        manager?.urlSessionAttempt(dataTask.attemptID, didReport: .body(data))
    }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        manager?.urlSessionAttempt(task.attemptID, didReport: .sent(bytes: bytesSent, totalExpected: totalBytesExpectedToSend))
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        manager?.urlSessionAttempt(task.attemptID, didReport: .completed(AttemptOutcome(error: error)))
    }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // FoundationNetworking asks when it must send a streamed body again (an authentication
        // retry): the transfer's producer makes a fresh stream. Answered on the manager's executor
        // whichever thread asks (FoundationNetworking waits for the answer on its own queue).
        guard let manager else { return completionHandler(nil) }
        manager.urlSessionAttempt(task.attemptID, needsNewBodyStream: completionHandler)
    }

    package func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        manager?.urlSessionDidBecomeInvalid(error: error)
    }

    // MARK: Decisions

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // With the manager gone its session was invalidated and cancelled: the task is ending, and
        // answering a cancelled task traps FoundationNetworking, so stay silent.
        guard let manager else { return }
        manager.urlSessionAttempt(task.attemptID, didReport: .redirectProposed(
            RedirectProposal(response: response, newRequest: request, answer: completionHandler)
        ))
    }

    package func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Implementing this task-level method is what keeps a 401 with WWW-Authenticate from
        // hanging on Linux; without a credential the answer is always an explicit cancel.
        guard let manager else { return }  // cancelled with the session, as for redirects
        manager.urlSessionAttempt(task.attemptID, didReport: .challenged(ChallengeQuestion(challenge: challenge, answer: completionHandler)))
    }

    #if !canImport(Security)
    package func urlSession(
        _ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Session-level challenges are server-trust evaluations (Apple platforms only; Linux never
        // delivers them): keep the system's evaluation.
        completionHandler(.performDefaultHandling, nil)
    }
    #endif
    // On Apple platforms the session-level method is left out on purpose: URLSession then hands
    // server-trust challenges to the task-level method above, where the task's transfer is known
    // and its SecurityPolicy is enforced (SessionManager+AppleTrust.swift).

    package func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let manager else { return completionHandler(proposedResponse) }
        manager.urlSessionAttempt(dataTask, willCache: proposedResponse, completion: completionHandler)
    }
}
