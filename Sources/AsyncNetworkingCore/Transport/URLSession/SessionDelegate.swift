import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one session-level URLSession delegate, routing every callback by task identifier into the
/// ``SessionManager`` actor (per-task delegates are unreliable on Linux).
///
/// Callbacks arrive on the manager's own executor queue, so each enters the actor synchronously with
/// `assumeIsolated`. When the manager is gone its session has been invalidated and cancelled
/// (`SessionManager`'s deinit), so decisions are left unanswered: answering a cancelled task traps
/// FoundationNetworking, and the cancel ends the task.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable { // reason: NSObject subclass; its one weak reference is attached once by the manager's init, before any task exists
    // reason: `manager` is written once in SessionManager.init, before the session can call back,
    // and read only on the delegate queue afterwards.
    private weak var manager: SessionManager?

    func attach(_ manager: SessionManager) { self.manager = manager }

    // MARK: Task lifecycle

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // The disposition is ignored on Linux; cancellation goes through task.cancel().
        completionHandler(.allow)
        manager?.assumeIsolated { $0.taskDidReceive(response: response, attemptID: dataTask.attemptID) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        manager?.assumeIsolated { $0.attempt(dataTask.attemptID, didReport: .body(data)) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64,
        totalBytesSent: Int64, totalBytesExpectedToSend: Int64
    ) {
        manager?.assumeIsolated {
            $0.attempt(task.attemptID, didReport: .sent(bytes: bytesSent, totalExpected: totalBytesExpectedToSend))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        manager?.assumeIsolated { $0.attempt(task.attemptID, didReport: .completed(AttemptOutcome(error: error))) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping @Sendable (InputStream?) -> Void
    ) {
        // FoundationNetworking asks when it must send a streamed body again (an authentication
        // retry): the transfer's producer makes a fresh stream. Answered on the manager's executor
        // whichever thread asks (FoundationNetworking waits for the answer on its own queue).
        guard let manager else { return completionHandler(nil) }
        let attemptID = task.attemptID
        manager.perform { $0.taskNeedsNewBodyStream(attemptID: attemptID, completion: completionHandler) }
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        manager?.assumeIsolated { $0.sessionDidBecomeInvalid(error: error) }
    }

    // MARK: Decisions

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // With the manager gone its session was invalidated and cancelled: the task is ending, and
        // answering a cancelled task traps FoundationNetworking, so stay silent.
        guard let manager else { return }
        manager.assumeIsolated {
            $0.attempt(task.attemptID, didReport: .redirectProposed(
                RedirectProposal(response: response, newRequest: request, answer: completionHandler)
            ))
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        // Implementing this task-level method is what keeps a 401 with WWW-Authenticate from
        // hanging on Linux; without a credential the answer is always an explicit cancel.
        guard let manager else { return }  // cancelled with the session, as for redirects
        manager.assumeIsolated {
            $0.attempt(task.attemptID, didReport: .challenged(ChallengeQuestion(challenge: challenge, answer: completionHandler)))
        }
    }

    #if !canImport(Security)
    func urlSession(
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

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, willCacheResponse proposedResponse: CachedURLResponse,
        completionHandler: @escaping @Sendable (CachedURLResponse?) -> Void
    ) {
        guard let manager else { return completionHandler(proposedResponse) }
        manager.assumeIsolated {
            $0.taskWillCache(proposedResponse, task: dataTask, completion: completionHandler)
        }
    }
}
