import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a transport reports about one attempt, in order, on the manager's executor — the one entry
/// into the Session layer (`SessionManager.attempt(_:didReport:)`), whatever the transport.
///
/// Per attempt: zero or more ``sent(bytes:totalExpected:)``; ``head(_:)`` (a transport that
/// follows no redirect and answers no challenge itself — curl, stubs — reports 3xx and 401/407
/// heads too, and the Session layer decides); ``body(_:)`` chunks; optionally ``trailers(_:)``;
/// exactly one ``completed(_:)``, always last. A transport that follows redirects and raises
/// challenges itself (URLSession) reports ``redirectProposed(_:)`` and ``challenged(_:)`` instead of
/// the 3xx or 401/407 head, with the answer it waits for: the Session layer decides the same way.
package enum AttemptEvent: Sendable {
    /// A final response head (1xx heads are not reported).
    case head(ResponseHead)
    /// The next body bytes, decoded as the transfer asked.
    case body(Data)
    /// Request body bytes sent since the previous report (> 0), and the body's length when known
    /// (≤ 0: unknown).
    case sent(bytes: Int64, totalExpected: Int64)
    /// Trailer fields that followed a chunked body.
    case trailers([(name: String, value: String)])
    /// The attempt ended; nothing follows.
    case completed(AttemptOutcome)
    /// The transport proposes to follow a redirect and waits for the answer (URLSession).
    case redirectProposed(RedirectProposal)
    /// The transport raised an authentication challenge and waits for the answer (URLSession).
    case challenged(ChallengeQuestion)
}

/// A redirect a transport proposes to follow, and how to answer it: the request to send, or
/// `nil` to stop and take the 3xx as the response. Answered at most once.
package struct RedirectProposal: Sendable {
    /// The 3xx response.
    package var response: HTTPURLResponse
    /// The request the transport would send next.
    package var newRequest: URLRequest
    /// Answers the transport.
    package var answer: @Sendable (URLRequest?) -> Void

    package init(response: HTTPURLResponse, newRequest: URLRequest, answer: @escaping @Sendable (URLRequest?) -> Void) {
        self.response = response
        self.newRequest = newRequest
        self.answer = answer
    }
}

/// An authentication challenge a transport raised, and how to answer it. Answered at most once.
package struct ChallengeQuestion: Sendable {
    /// The challenge, as the transport made it.
    package var challenge: URLAuthenticationChallenge
    /// Answers the transport.
    package var answer: @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void

    package init(challenge: URLAuthenticationChallenge, answer: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        self.challenge = challenge
        self.answer = answer
    }
}

/// How an attempt ended.
package struct AttemptOutcome: Sendable {
    /// `nil` on success; else the failure as the transport maps it (a `URLError` for a network
    /// failure, a ``NetworkingError`` when the transport knows more, e.g. a TLS failure).
    package var error: (any Error)?
    /// What the transport measured about the connection, when it does.
    package var metrics: ConnectionMetrics?
    /// The request body could not be read to its end (a file changed or vanished while being sent).
    package var bodyReadFailure: NetworkingError?

    package init(error: (any Error)? = nil, metrics: ConnectionMetrics? = nil, bodyReadFailure: NetworkingError? = nil) {
        self.error = error
        self.metrics = metrics
        self.bodyReadFailure = bodyReadFailure
    }
}
