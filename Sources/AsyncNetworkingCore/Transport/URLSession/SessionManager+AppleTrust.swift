#if canImport(Security)
// Apple platforms only. NOT COMPILED OR TESTED in this project's CI (Linux, no Apple SDK).
import Foundation
import Security

/// The URLSession transport enforcing a ``SecurityPolicy`` on Apple platforms: the server-trust
/// challenge (delivered to the task-level delegate method, as the session-level one is not
/// implemented there) is judged by ``AppleServerTrustEvaluation``, then by the policy's
/// ``ServerTrustEvaluator``. A failure cancels the challenge — nothing of the request is sent —
/// and the transfer fails with ``NetworkingError/Kind/serverTrustFailed(host:reason:)``.
extension SessionManager {
    func evaluateServerTrust(
        _ challenge: URLAuthenticationChallenge, for state: TransferState, attemptID: AttemptID,
        completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let space = challenge.protectionSpace
        let host = space.host
        let policy = securityPolicies.policy(forHost: host)
        guard let trust = space.serverTrust, !policy.isTransportDefault else {
            return completion(.performDefaultHandling, nil)
        }
        if case .failed(let reason, let text) = AppleServerTrustEvaluation.evaluate(trust, host: host, policy: policy) {
            return refuseServerTrust(host: host, reason: reason, detail: text, for: state, completion: completion)
        }
        // A URLCredential holding the evaluated trust; only handed back to URLSession.
        nonisolated(unsafe) let credential = URLCredential(trust: trust)
        guard let evaluator = policy.serverTrustEvaluator else {
            return completion(.useCredential, credential)
        }
        let context = ServerTrustContext(
            host: SecurityPolicyTable.normalized(host), port: space.port,
            certificateChain: AppleServerTrustEvaluation.certificateChain(of: trust)
        )
        Task {
            let decision = await evaluator.decision(for: context)
            // A transfer cancelled meanwhile is not answered (URLSession cancelled the challenge).
            guard isAwaitingDecision(state, attemptID) else { return }
            switch decision {
            case .accept:
                completion(.useCredential, credential)
            case .reject:
                refuseServerTrust(host: host, reason: .rejectedByEvaluator, detail: nil, for: state, completion: completion)
            case nil:
                refuseServerTrust(host: host, reason: .evaluatorTimedOut, detail: nil, for: state, completion: completion)
            }
        }
    }

    /// Records the typed failure (reported when the task ends) and cancels the challenge.
    private func refuseServerTrust(
        host: String, reason: ServerTrustFailureReason, detail: String?, for state: TransferState,
        completion: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        if state.attemptFailure == nil {
            let base = NetworkingError.serverTrustRejected(host: host, reason: reason)
            let message = detail.map { "\(base.message) (\($0))" } ?? base.message
            state.attemptFailure = NetworkingError(base.kind, message, request: state.originalRequest)
        }
        completion(.cancelAuthenticationChallenge, nil)
    }
}
#endif
