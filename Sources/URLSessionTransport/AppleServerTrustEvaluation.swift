#if canImport(Security)
// Apple platforms only. NOT COMPILED OR TESTED in this project's CI: it runs on Linux, which has
// no Security framework and no Apple SDK. Written against the documented Security API
// (macOS 12+/iOS 15+ calls; the package requires macOS 15/iOS 18).
import Foundation
import Security

/// A ``SecurityPolicy`` judged against a `SecTrust`: what AFSecurityPolicy's
/// `evaluateServerTrust:forDomain:` does, for URLSession's server-trust challenge on Apple
/// platforms (a pure function of the trust, the host and the policy).
///
/// Same semantics as the curl transport: the host name is checked unless
/// ``SecurityPolicy/validatesDomainName`` is `false`; custom roots and pinned certificates are the
/// only anchors; a public-key pin is checked on the **leaf**'s key (SHA-256 over its SPKI, the same
/// value `PublicKeyPin(certificate:)` computes); ``SecurityPolicy/Evaluation/disabled`` accepts anything.
enum AppleServerTrustEvaluation {
    /// The verdict.
    enum Outcome: Sendable, Hashable {
        case trusted
        case failed(ServerTrustFailureReason, String)
    }

    static func evaluate(_ trust: SecTrust, host: String, policy: SecurityPolicy) -> Outcome {
        if case .disabled = policy.evaluation { return .trusted }
        let ssl = SecPolicyCreateSSL(true, policy.validatesDomainName ? host as CFString : nil)
        var status = SecTrustSetPolicies(trust, ssl)
        guard status == errSecSuccess else { return .failed(.invalidChain, "SecTrustSetPolicies failed (OSStatus \(status))") }

        let anchors: [Certificate]? = switch policy.evaluation {
        case .customRoots(let roots): roots
        case .pinnedPublicKeys(_, let roots): roots
        case .pinnedCertificates(let certificates): certificates
        case .default, .disabled: nil
        }
        if let anchors {
            let secCertificates = anchors.compactMap { SecCertificateCreateWithData(nil, $0.derData as CFData) }
            guard secCertificates.count == anchors.count else {
                return .failed(.invalidChain, "a certificate of the security policy is not DER X.509")
            }
            status = SecTrustSetAnchorCertificates(trust, secCertificates as CFArray)
            if status == errSecSuccess { status = SecTrustSetAnchorCertificatesOnly(trust, true) }
            guard status == errSecSuccess else {
                return .failed(.invalidChain, "SecTrustSetAnchorCertificates failed (OSStatus \(status))")
            }
        }

        var error: CFError?
        guard SecTrustEvaluateWithError(trust, &error) else {
            let code = error.map { OSStatus(truncatingIfNeeded: CFErrorGetCode($0)) } ?? errSecNotTrusted
            let text = error.map { CFErrorCopyDescription($0) as String } ?? "SecTrustEvaluateWithError failed"
            var reason = reason(for: code)
            // Pinned certificates are the only anchors: a chain that reaches none is a pin mismatch.
            if case .pinnedCertificates = policy.evaluation, reason == .untrustedRoot { reason = .certificatePinMismatch }
            return .failed(reason, text)
        }

        let chain = certificateChain(of: trust)
        switch policy.evaluation {
        case .pinnedPublicKeys(let pins, _):
            guard let leaf = chain.first, let pin = try? PublicKeyPin(certificate: leaf), pins.contains(pin) else {
                return .failed(.publicKeyPinMismatch, "the server's public key matches none of the pinned keys")
            }
        case .pinnedCertificates(let pinned):
            guard chain.contains(where: pinned.contains) else {
                return .failed(.certificatePinMismatch, "no certificate of the chain is pinned")
            }
        case .default, .customRoots, .disabled:
            break
        }
        return .trusted
    }

    /// The chain, leaf first, as DER (the evaluated chain: after evaluation it may end with the
    /// anchor the server did not send).
    static func certificateChain(of trust: SecTrust) -> [Certificate] {
        let certificates = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
        return certificates.map { Certificate(der: SecCertificateCopyData($0) as Data) }
    }

    /// The failure reason for a trust evaluation's `OSStatus`.
    static func reason(for status: OSStatus) -> ServerTrustFailureReason {
        switch status {
        case errSecHostNameMismatch: .hostNameMismatch
        case errSecCertificateExpired: .expired
        case errSecCertificateNotValidYet: .notYetValid
        case errSecNotTrusted: .untrustedRoot
        default: .invalidChain
        }
    }
}
#endif
