import Foundation

/// What about a TLS server failed its ``SecurityPolicy`` (the reason of
/// ``NetworkingError/Kind/serverTrustFailed(host:reason:)``). `@nonexhaustive`: a `switch` over it
/// outside this package ends with `@unknown default:`, so a new reason never breaks your build.
@nonexhaustive
public enum ServerTrustFailureReason: Sendable, Hashable, CustomStringConvertible {
    /// The chain does not lead to a trusted root (an unknown CA, a self-signed certificate, or,
    /// under ``SecurityPolicy/Evaluation/customRoots(_:)``, a CA not among the custom roots).
    case untrustedRoot
    /// The certificate does not name the host (checked when
    /// ``SecurityPolicy/validatesDomainName`` is `true`).
    case hostNameMismatch
    /// A certificate of the chain has expired.
    case expired
    /// A certificate of the chain is not valid yet.
    case notYetValid
    /// The server's public key is none of the pinned keys.
    case publicKeyPinMismatch
    /// Neither the leaf nor any certificate of the chain is one of the pinned certificates.
    case certificatePinMismatch
    /// The chain was refused for another reason (revoked, bad signature, wrong usage...); the
    /// error's message has the TLS library's words.
    case invalidChain
    /// The TLS handshake itself failed (no common protocol or cipher, the server spoke no TLS...).
    case handshakeFailed
    /// The policy's ``SecurityPolicy/serverTrustEvaluator`` answered ``ServerTrustDecision/reject``
    /// (every other check had passed).
    case rejectedByEvaluator
    /// The policy's ``SecurityPolicy/serverTrustEvaluator`` did not answer within its
    /// ``ServerTrustEvaluator/timeout`` (fail closed, as a rejection).
    case evaluatorTimedOut

    public var description: String {
        switch self {
        case .untrustedRoot: "untrustedRoot"
        case .hostNameMismatch: "hostNameMismatch"
        case .expired: "expired"
        case .notYetValid: "notYetValid"
        case .publicKeyPinMismatch: "publicKeyPinMismatch"
        case .certificatePinMismatch: "certificatePinMismatch"
        case .invalidChain: "invalidChain"
        case .handshakeFailed: "handshakeFailed"
        case .rejectedByEvaluator: "rejectedByEvaluator"
        case .evaluatorTimedOut: "evaluatorTimedOut"
        }
    }

    /// What a sentence says about it, for error messages.
    package var explanation: String {
        switch self {
        case .untrustedRoot: "its certificate chain does not lead to a trusted root"
        case .hostNameMismatch: "its certificate does not name the host"
        case .expired: "its certificate has expired"
        case .notYetValid: "its certificate is not valid yet"
        case .publicKeyPinMismatch: "its public key matches none of the pinned keys"
        case .certificatePinMismatch: "no certificate of its chain is one of the pinned certificates"
        case .invalidChain: "its certificate chain was refused"
        case .handshakeFailed: "the TLS handshake failed"
        case .rejectedByEvaluator: "the server-trust evaluator rejected it"
        case .evaluatorTimedOut: "the server-trust evaluator did not answer in time"
        }
    }
}

/// Turns a libcurl TLS failure into a ``ServerTrustFailureReason`` (a pure function; libcurl's
/// codes, OpenSSL's verification messages as libcurl 7.68–8.x words them).
package enum ServerTrustClassifier {
    /// The outcome of a failed transfer's `CURLcode` under `evaluation`.
    package enum Outcome: Equatable {
        /// Not a TLS failure: map it as any transport error.
        case notTLS
        /// The server failed the policy.
        case server(ServerTrustFailureReason)
        /// The client's own identity could not be used.
        case clientIdentity
        /// The server refused the client: no certificate, or one it does not trust (a TLS alert
        /// about the client's certificate, received during or right after the handshake).
        case clientRejected
    }

    /// TLS alerts a server sends about the client's certificate (as OpenSSL words them).
    static let clientCertificateAlerts = [
        "alert certificate required", "alert unknown ca", "alert bad certificate", "alert certificate unknown",
        "alert certificate expired", "alert certificate revoked", "alert unsupported certificate", "alert access denied",
    ]

    /// `handshake` and `responseStarted` (a response line arrived) let a connection that ended
    /// right after a handshake in which the server asked for a client certificate be classified
    /// by what the handshake showed, whatever curl's words (see ``TLSHandshakeNotes``).
    package static func classify(
        code: Int32, message: String, evaluation: SecurityPolicy.Evaluation,
        handshake: TLSHandshakeNotes = TLSHandshakeNotes(), responseStarted: Bool = false
    ) -> Outcome {
        let text = message.lowercased()
        if code == 35 || code == 56, clientCertificateAlerts.contains(where: text.contains) {
            return .clientRejected
        }
        if code == 98 { return .clientRejected } // SSL_CLIENTCERT: the server required a certificate
        if handshake.showsClientCertificateRejection(code: code, responseStarted: responseStarted) {
            return .clientRejected
        }
        switch code {
        case 90: // SSL_PINNEDPUBKEYNOTMATCH
            return .server(.publicKeyPinMismatch)
        case 58: // SSL_CERTPROBLEM: our certificate or key
            return .clientIdentity
        case 60, 51, 83, 91: // PEER_FAILED_VERIFICATION, (old) PEER_FAILED_VERIFICATION, ISSUER_ERROR, INVALIDCERTSTATUS
            return .server(verificationReason(text, evaluation: evaluation))
        case 35: // SSL_CONNECT_ERROR
            if text.contains("unable to set private key") || text.contains("bad decrypt") || text.contains("unable to use client certificate") {
                return .clientIdentity
            }
            return .server(.handshakeFailed)
        case 53, 54, 59, 66, 77, 80, 82, 98:
            return .server(.handshakeFailed)
        default:
            return .notTLS
        }
    }

    private static func verificationReason(_ text: String, evaluation: SecurityPolicy.Evaluation) -> ServerTrustFailureReason {
        if text.contains("subject name") || text.contains("host name") || text.contains("hostname") {
            return .hostNameMismatch
        }
        if text.contains("expired") { return .expired }
        if text.contains("not yet valid") { return .notYetValid }
        let untrusted = ["self-signed", "self signed", "unable to get local issuer", "unable to get issuer",
                         "unable to verify the first certificate", "untrusted", "unknown ca"]
        if untrusted.contains(where: text.contains) {
            // Pinned certificates are the only anchors: a chain that reaches none of them is a pin mismatch.
            if case .pinnedCertificates = evaluation { return .certificatePinMismatch }
            return .untrustedRoot
        }
        return .invalidChain
    }
}
