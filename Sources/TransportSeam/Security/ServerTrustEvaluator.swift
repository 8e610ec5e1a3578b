import Foundation
import Synchronization

/// Your own judgement of a TLS server, asked after the ``SecurityPolicy``'s checks passed:
/// AFNetworking's `-[AFSecurityPolicy evaluateServerTrust:forDomain:]` (or a session/task
/// challenge block answering `NSURLAuthenticationMethodServerTrust`), Alamofire's
/// `ServerTrustEvaluating`. Set it on a policy (``SecurityPolicy/serverTrustEvaluator``), per host
/// through ``SessionManager/setSecurityPolicy(_:forHost:)``.
///
/// ```swift
/// let expectedLeaf = try Certificate(pem: leafPEM)
/// var policy = SecurityPolicy.customRoots([internalCA])
/// policy.serverTrustEvaluator = ServerTrustEvaluator { context in
///     await auditLog.record(context.host, context.certificateChain)
///     return context.leaf == expectedLeaf ? .accept : .reject
/// }
/// await manager.setSecurityPolicy(policy, forHost: "api.internal.example")
/// ```
///
/// **When it runs (curl transport, the Linux default).** Once per **new** connection (per TLS
/// handshake, as URLSession's server-trust challenge), after the handshake and every check of
/// the policy (chain, host name, pins) passed, and before any byte of the request — header or
/// body — is written on the connection (`CURLOPT_PREREQFUNCTION`). A connection it accepted is
/// reused only by requests whose policy has this same evaluator (a connection made without it,
/// or accepted by another evaluator, is never handed to such a request: that request gets a
/// connection of its own, judged afresh). A policy failure never reaches it. On HTTP/2 the fixed
/// connection preface and `SETTINGS` frame may precede it; nothing of any request does.
///
/// **Waiting for it.** libcurl 7.88 cannot pause a handshake or a transfer for an asynchronous
/// answer at that point, so the manager's curl loop thread **waits** for the closure (which runs
/// in a task of its own) up to ``timeout``: meanwhile the manager's other transfers do not
/// progress. Keep it quick (compare fingerprints, consult local state); never make a request
/// through the **same** manager from it (it could not progress: the wait ends with
/// ``ServerTrustFailureReason/evaluatorTimedOut``). No answer within ``timeout`` rejects the
/// connection. Cancelling the transfer while it decides ends the wait at once: the transfer ends
/// cancelled, the evaluator's task is cancelled and its late answer ignored.
///
/// **URLSession transport.** On Linux a policy with an evaluator is refused there
/// (``NetworkingError/Kind/securityPolicyUnsupported``), as every non-default policy; on Apple
/// platforms it runs in the server-trust challenge after the policy's `SecTrust` evaluation.
///
/// Two evaluators are equal only when they are the same value (made by the same ``init(timeout:_:)``
/// call), so a policy compares equal to itself and differs from one with another evaluator.
public struct ServerTrustEvaluator: Sendable, Hashable {
    /// The closure's type: the host, port and presented chain in; accept or reject out.
    public typealias Evaluate = @Sendable (ServerTrustContext) async -> ServerTrustDecision

    /// How long the transport waits for an answer before it rejects the connection
    /// (``ServerTrustFailureReason/evaluatorTimedOut``). Default 10 seconds.
    public let timeout: Duration
    package let evaluate: Evaluate
    private let identity: Identity

    /// An evaluator.
    ///
    /// - Parameters:
    ///   - timeout: the longest wait for an answer. Default 10 seconds; at least 1 millisecond.
    ///   - evaluate: called once per new TLS connection to a host under this policy, in a task of
    ///     its own (not on the manager's actor); cancelled when the transfer is.
    public init(timeout: Duration = .seconds(10), _ evaluate: @escaping Evaluate) {
        self.timeout = max(timeout, .milliseconds(1))
        self.evaluate = evaluate
        identity = Identity()
    }

    /// The same evaluator (the same ``init(timeout:_:)`` call).
    public static func == (lhs: ServerTrustEvaluator, rhs: ServerTrustEvaluator) -> Bool {
        lhs.identity.serial == rhs.identity.serial
    }

    /// Hashes the evaluator's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity.serial)
    }

    /// A number no other evaluator of this process has: names the connections it accepted (an
    /// object address could be reused by a later evaluator; this cannot).
    package var id: UInt64 { identity.serial }

    private final class Identity: Sendable {
        let serial = Identity.next.add(1, ordering: .relaxed).newValue
        private static let next = Atomic<UInt64>(0)
    }
}

/// What a ``ServerTrustEvaluator`` is asked about: one new TLS connection.
public struct ServerTrustContext: Sendable, Hashable {
    /// The host the URL names (lowercased by URL parsing; an IPv6 address without brackets).
    public let host: String
    /// The server's port.
    public let port: Int
    /// The certificates the server presented, **leaf first**, in DER (as sent; the chain the
    /// policy's checks built from them may add a root from the trust store).
    public let certificateChain: [Certificate]

    /// The server's own certificate (the first of ``certificateChain``).
    public var leaf: Certificate? { certificateChain.first }

    /// A context (for testing an evaluator without a server).
    public init(host: String, port: Int, certificateChain: [Certificate]) {
        self.host = host
        self.port = port
        self.certificateChain = certificateChain
    }
}

/// A ``ServerTrustEvaluator``'s answer.
public enum ServerTrustDecision: Sendable, Hashable {
    /// Trust the server: the request is sent.
    case accept
    /// Do not trust it: nothing is sent, the connection is closed and the transfer fails with
    /// ``NetworkingError/Kind/serverTrustFailed(host:reason:)`` and
    /// ``ServerTrustFailureReason/rejectedByEvaluator``.
    case reject
}

extension ServerTrustEvaluator {
    /// The evaluator's answer, or `nil` when none came within ``timeout`` (its task is then
    /// cancelled and a late answer ignored). Suspends; blocks no thread. Used where the transport
    /// can wait asynchronously (URLSession's challenge on Apple platforms).
    func decision(for context: ServerTrustContext) async -> ServerTrustDecision? {
        let pending = SanitizedMutex<CheckedContinuation<ServerTrustDecision?, Never>?>(nil)
        let (evaluate, timeout) = (evaluate, timeout)
        return await withCheckedContinuation { continuation in
            pending.withLock { $0 = continuation }
            let finish: @Sendable (ServerTrustDecision?) -> Void = { answer in
                let waiting = pending.withLock { slot -> CheckedContinuation<ServerTrustDecision?, Never>? in
                    defer { slot = nil }
                    return slot
                }
                waiting?.resume(returning: answer)
            }
            let evaluation = Task.detached { finish(await evaluate(context)) }
            Task.detached {
                try? await Task.sleep(for: timeout)
                evaluation.cancel()
                finish(nil)
            }
        }
    }
}
