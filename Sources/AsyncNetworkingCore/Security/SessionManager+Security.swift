import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Setting the TLS policies, and the checks made before every attempt (the first request, each
/// redirect, each retry) — so a redirect to another host is judged by that host's policy.
extension SessionManager {
    /// Replaces the policy of every host that has none of its own. Applies to attempts started
    /// from now on (a redirect or retry of a running transfer included); connections already made
    /// under another policy are not reused for them.
    public func setSecurityPolicy(_ policy: SecurityPolicy) {
        securityPolicies.defaultPolicy = policy
    }

    /// Sets the policy for one host, or removes it (`nil`: the host gets the default again).
    ///
    /// - Parameter host: a host name or IP address as URLs spell it (case-insensitive), or
    ///   `*.example.com` for every subdomain of `example.com` (not `example.com` itself). An exact
    ///   entry wins over a wildcard, the longest wildcard over shorter ones.
    public func setSecurityPolicy(_ policy: SecurityPolicy?, forHost host: String) {
        securityPolicies.byHost[SecurityPolicyTable.normalized(host)] = policy
    }

    /// The policy attempts to `host` run under.
    public func securityPolicy(forHost host: String) -> SecurityPolicy {
        securityPolicies.policy(forHost: host)
    }

    /// The policy for `request`'s host, after checking that it may be sent at all: plain http is
    /// refused under ``SecurityPolicy/requiresHTTPS`` (loopback aside), and a transport that
    /// cannot enforce the policy refuses it.
    func securityPolicy(checking request: URLRequest) throws(NetworkingError) -> SecurityPolicy {
        let host = request.url?.host
        let policy = securityPolicies.policy(forHost: host)
        let scheme = request.url?.scheme?.lowercased()
        if policy.requiresHTTPS, scheme == "http", !SecurityPolicyTable.isLoopback(host) {
            throw NetworkingError(
                .cleartextRefused, "plain http to \(host ?? "a URL without a host") is refused: the security policy requires https",
                request: request
            )
        }
        if scheme == "https", !policy.isTransportDefault, !enginesEnforce(policy) {
            #if canImport(Security)
            let detail = "it cannot present a ClientIdentity"
            #else
            let detail = "only .default; use the curl transport"
            #endif
            throw NetworkingError(
                .securityPolicyUnsupported,
                "the URLSession transport cannot enforce the security policy for \(host ?? "the host") (\(detail))",
                request: request
            )
        }
        if scheme == "https" {
            do throws(NetworkingError) { try policy.validate(host: host ?? "") } catch { throw error.adding(request: request) }
        }
        return policy
    }

    /// Whether this manager's transport enforces `policy`: curl enforces every policy; URLSession on
    /// Apple platforms every policy without a client identity (its server-trust challenge,
    /// SessionManager+AppleTrust); URLSession on Linux none but ``SecurityPolicy/default``.
    private func enginesEnforce(_ policy: SecurityPolicy) -> Bool {
        #if os(Linux) && canImport(CCurlShim)
        if case .curl = engine { return true }
        #endif
        #if canImport(Security)
        return policy.clientIdentity == nil
        #else
        return false
        #endif
    }

    /// The error for a redirect (on either transport) that the target host's policy forbids, or
    /// `nil` when it allows it; the transfer then fails with it.
    func redirectPolicyRefusal(_ state: TransferState, to request: URLRequest, after response: HTTPURLResponse) -> NetworkingError? {
        do throws(NetworkingError) {
            _ = try securityPolicy(checking: request)
            return nil
        } catch {
            return NetworkingError(error.kind, error.message, request: state.originalRequest, response: response)
        }
    }
}

extension NetworkingError {
    /// The error for a failed TLS handshake with `host` under `policy`, or `nil` when `code` is not
    /// a TLS failure. `message` is libcurl's error text (kept in the message); `handshake` and
    /// `responseStarted` are what the connection showed (``TLSHandshakeNotes``).
    static func tls(
        code: Int32, message: String, host: String, policy: SecurityPolicy,
        handshake: TLSHandshakeNotes = TLSHandshakeNotes(), responseStarted: Bool = false
    ) -> NetworkingError? {
        let outcome = ServerTrustClassifier.classify(
            code: code, message: message, evaluation: policy.evaluation, handshake: handshake, responseStarted: responseStarted
        )
        switch outcome {
        case .notTLS:
            return nil
        case .clientIdentity:
            return NetworkingError(.clientIdentityFailed, "the client identity for \(host) could not be used: \(message)")
        case .clientRejected:
            return NetworkingError(
                .clientCertificateRejected(host: host),
                "the TLS server \(host) refused the client's certificate (or its absence): \(message)"
            )
        case .server(let reason):
            return NetworkingError(
                .serverTrustFailed(host: host, reason: reason),
                "the TLS server \(host) was not trusted: \(reason.explanation) (\(message))"
            )
        }
    }

    /// The error for a connection the policy's ``ServerTrustEvaluator`` refused (or did not answer
    /// for in time): nothing of the request was sent.
    static func serverTrustRejected(host: String, reason: ServerTrustFailureReason) -> NetworkingError {
        NetworkingError(
            .serverTrustFailed(host: host, reason: reason),
            "the TLS server \(host) was not trusted: \(reason.explanation); nothing was sent"
        )
    }
}
