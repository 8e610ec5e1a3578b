import Foundation

/// A transfer's TLS settings as libcurl takes them, made from a ``SecurityPolicy``. A plain value;
/// the defaults are libcurl's own (system roots, peer and host verified).
///
/// libcurl reuses a connection, or resumes a TLS session, only for a transfer whose TLS settings
/// match the ones it was made with (CA blob, verify flags, pinned key, client certificate), so a
/// connection verified under one policy is never taken by a transfer of another. Connections of
/// ``SecurityPolicy/Evaluation/disabled`` are also closed after their transfer and keep no session.
package struct CurlTLSOptions: Sendable, Hashable {
    /// `CURLOPT_SSL_VERIFYPEER`. Default `true`.
    package var verifiesPeer = true
    /// `CURLOPT_SSL_VERIFYHOST` 2 (`true`) or 0. Default `true`.
    package var verifiesHost = true
    /// PEM certificates trusted instead of the system's roots (`CURLOPT_CAINFO_BLOB`, or a private
    /// temporary file for `CURLOPT_CAINFO` before libcurl 7.77; `CURLOPT_CAPATH` cleared). Default `nil`.
    package var trustedRootsPEM: Data?
    /// `CURLOPT_PINNEDPUBLICKEY`: `sha256//a;sha256//b`. Default `nil`.
    package var pinnedPublicKeys: String?
    /// `CURLOPT_SSLCERT` (PEM). Default `nil`.
    package var clientCertificatePath: String?
    /// `CURLOPT_SSLKEY` (PEM). Default `nil`.
    package var clientKeyPath: String?
    /// `CURLOPT_KEYPASSWD`. Default `nil`.
    package var keyPassphrase: String?
    /// No TLS session cache, and the connection is closed after the transfer
    /// (`CURLOPT_SSL_SESSIONID_CACHE` 0, `CURLOPT_FORBID_REUSE` 1). Default `false`.
    package var isolatesConnection = false
    /// Asked before the first request on each new connection (`CURLOPT_PREREQFUNCTION`, see
    /// `CurlServerTrustGate`); a reused connection must have been accepted by this same evaluator.
    /// Default `nil`.
    package var serverTrustEvaluator: ServerTrustEvaluator?

    /// libcurl's defaults.
    init() {}

    /// The settings that enforce `policy`.
    package init(policy: SecurityPolicy) {
        verifiesHost = policy.validatesDomainName
        switch policy.evaluation {
        case .default:
            break
        case .customRoots(let roots):
            trustedRootsPEM = Self.bundle(roots)
        case .pinnedPublicKeys(let pins, let roots):
            pinnedPublicKeys = pins.map(\.description).joined(separator: ";")
            if let roots { trustedRootsPEM = Self.bundle(roots) }
        case .pinnedCertificates(let certificates):
            // The pinned certificates are the only anchors; libcurl (7.68+) sets OpenSSL's
            // X509_V_FLAG_PARTIAL_CHAIN, so a pinned leaf or intermediate anchors the chain too.
            trustedRootsPEM = Self.bundle(certificates)
        case .disabled:
            verifiesPeer = false
            verifiesHost = false
            isolatesConnection = true
        }
        serverTrustEvaluator = policy.serverTrustEvaluator
        if let identity = policy.clientIdentity {
            clientCertificatePath = identity.certificateFile.path
            clientKeyPath = identity.keyFile.path
            keyPassphrase = identity.passphrase
        }
    }

    /// A PEM bundle. An empty list gives an empty bundle, which trusts nothing (fail closed).
    private static func bundle(_ certificates: [Certificate]) -> Data {
        Data(certificates.map(\.pemEncoded).joined().utf8)
    }
}
