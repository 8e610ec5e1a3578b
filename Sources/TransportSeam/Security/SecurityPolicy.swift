import Foundation

/// How a manager decides whether to trust a TLS server (AFNetworking's `AFSecurityPolicy`), and
/// which client identity it presents. A plain value: set one per manager
/// (``SessionManager/init(configuration:maxConcurrentTransfers:transport:securityPolicy:http2:)``,
/// ``SessionManager/setSecurityPolicy(_:)``) and override it per host
/// (``SessionManager/setSecurityPolicy(_:forHost:)``).
///
/// Enforced by the curl transport (the Linux default) on every attempt — the first request, every
/// redirect and every retry — during the TLS handshake, so nothing (no header, no body) is sent to
/// a server that fails the policy. On Linux the URLSession transport cannot enforce anything but
/// ``default``: any other policy makes its transfers fail with
/// ``NetworkingError/Kind/securityPolicyUnsupported`` before anything is sent. On Apple platforms
/// URLSession enforces every policy without a ``clientIdentity`` in its server-trust challenge
/// (that code is not compiled by this project's Linux CI; see the Security article).
///
/// ```swift
/// let pinned = try SecurityPolicy(evaluation: .pinnedPublicKeys([
///     PublicKeyPin("sha256//r8udi/Mxd6pLO7y7hZyUMWq8YnFnIWXCqeHsTDRqy8c="),
///     PublicKeyPin("sha256//YLh1dUR9y6Kja30RrAn7JKnbQG/uEtLMkBgFF2Fuihg="), // the next key
/// ]))
/// let manager = SessionManager(securityPolicy: .default)
/// await manager.setSecurityPolicy(pinned, forHost: "api.example.com")
/// ```
public struct SecurityPolicy: Sendable, Hashable {
    /// How the server's certificate chain is judged.
    public enum Evaluation: Sendable, Hashable {
        /// The chain must lead to one of the system's trusted roots (AF's `AFSSLPinningModeNone`).
        case `default`
        /// The chain must lead to one of these CA certificates; the system's roots are not
        /// trusted. A certificate may also be trusted directly (a self-signed leaf, an intermediate).
        case customRoots([Certificate])
        /// The chain must be trusted (by the system's roots, or by `roots` when given) **and** the
        /// server's public key must be one of these (AF's `AFSSLPinningModePublicKey`). Keep a pin
        /// for the next key too, so a re-key does not lock clients out.
        case pinnedPublicKeys([PublicKeyPin], roots: [Certificate]? = nil)
        /// The leaf or any certificate of the chain must be one of these (AF's
        /// `AFSSLPinningModeCertificate`): they become the only trust anchors (a pinned
        /// self-signed leaf is trusted; the system's roots are not).
        case pinnedCertificates([Certificate])
        /// **No certificate check at all** — any server, any certificate, any name (AF's
        /// `allowInvalidCertificates = YES` with `validatesDomainName = NO`). For development
        /// only: anyone on the path can read and change the traffic. Connections made under it are
        /// never reused by another policy's requests, and no TLS session is resumed from them.
        case disabled
    }

    /// How the certificate chain is judged. Default ``Evaluation/default``.
    public var evaluation: Evaluation
    /// Whether the certificate must name the host the URL names (its subject alternative names,
    /// or its common name) — `CURLOPT_SSL_VERIFYHOST`. Default `true`. Ignored by
    /// ``Evaluation/disabled`` (which checks nothing).
    public var validatesDomainName: Bool
    /// When `true`, a plain `http` URL is refused before anything is sent (including a redirect
    /// to one), unless its host is a loopback address (`localhost`, `127.0.0.0/8`, `::1`): the
    /// transfer fails with ``NetworkingError/Kind/cleartextRefused``. Default `false`.
    public var requiresHTTPS: Bool
    /// The certificate and key presented when the server asks for one (mutual TLS). Default `nil`.
    public var clientIdentity: ClientIdentity?
    /// Your own judgement of the server, asked once per new TLS connection **after** every check
    /// above passed and before any byte of a request is sent on it (AFNetworking's
    /// `evaluateServerTrust:forDomain:`, Alamofire's `ServerTrustEvaluating`). A rejection fails
    /// the transfer with ``NetworkingError/Kind/serverTrustFailed(host:reason:)`` and
    /// ``ServerTrustFailureReason/rejectedByEvaluator``. Default `nil`. See ``ServerTrustEvaluator``.
    public var serverTrustEvaluator: ServerTrustEvaluator?

    /// A policy. Every parameter defaults to the behaviour of ``default``.
    public init(
        evaluation: Evaluation = .default, validatesDomainName: Bool = true,
        requiresHTTPS: Bool = false, clientIdentity: ClientIdentity? = nil,
        serverTrustEvaluator: ServerTrustEvaluator? = nil
    ) {
        self.evaluation = evaluation
        self.validatesDomainName = validatesDomainName
        self.requiresHTTPS = requiresHTTPS
        self.clientIdentity = clientIdentity
        self.serverTrustEvaluator = serverTrustEvaluator
    }

    /// System roots, host name checked, plain http allowed, no client identity: what curl and
    /// URLSession do by themselves.
    public static let `default` = SecurityPolicy()

    /// Trust only these CA certificates (see ``Evaluation/customRoots(_:)``); host name checked.
    public static func customRoots(_ roots: [Certificate]) -> SecurityPolicy {
        SecurityPolicy(evaluation: .customRoots(roots))
    }

    /// Pin these public keys on top of the usual chain check (see
    /// ``Evaluation/pinnedPublicKeys(_:roots:)``); host name checked.
    public static func pinnedPublicKeys(_ pins: [PublicKeyPin], roots: [Certificate]? = nil) -> SecurityPolicy {
        SecurityPolicy(evaluation: .pinnedPublicKeys(pins, roots: roots))
    }

    /// Pin these certificates (see ``Evaluation/pinnedCertificates(_:)``); host name checked.
    public static func pinnedCertificates(_ certificates: [Certificate]) -> SecurityPolicy {
        SecurityPolicy(evaluation: .pinnedCertificates(certificates))
    }

    /// **No verification at all** — see ``Evaluation/disabled``. Development only.
    public static let disabled = SecurityPolicy(evaluation: .disabled, validatesDomainName: false)

    /// Refuses a policy that would trust nothing or check nothing by mistake: an empty list of
    /// roots, pins or pinned certificates (libcurl would fall back to its defaults for some).
    package func validate(host: String) throws(NetworkingError) {
        let empty: String? = switch evaluation {
        case .customRoots(let roots): roots.isEmpty ? "custom roots" : nil
        case .pinnedPublicKeys(let pins, let roots): pins.isEmpty ? "pinned public keys" : roots?.isEmpty == true ? "roots" : nil
        case .pinnedCertificates(let certificates): certificates.isEmpty ? "pinned certificates" : nil
        case .default, .disabled: nil
        }
        if let empty {
            throw NetworkingError(.invalidCertificate, "the security policy for \(host) has an empty list of \(empty)")
        }
    }

    /// Whether this policy asks only for what every transport does by itself (the system's roots,
    /// the host name checked, no client identity, no evaluator). `requiresHTTPS` is checked by the manager
    /// itself, on every transport.
    package var isTransportDefault: Bool {
        evaluation == .default && validatesDomainName && clientIdentity == nil && serverTrustEvaluator == nil
    }
}

/// A client certificate and its private key, presented to servers that ask for one (mutual TLS).
///
/// The files are read by the TLS library when a connection is made, not when this value is
/// created: an unreadable file, a wrong passphrase or a key that does not match fails that
/// transfer with ``NetworkingError/Kind/clientIdentityFailed``.
public struct ClientIdentity: Sendable, Hashable {
    /// A PEM file with the certificate (optionally followed by its intermediates).
    public var certificateFile: URL
    /// A PEM file with the private key (PKCS#8 or traditional; encrypted when ``passphrase`` is set).
    public var keyFile: URL
    /// The key's passphrase. Default `nil` (an unencrypted key). Never logged.
    public var passphrase: String?

    /// An identity from PEM files.
    public init(certificateFile: URL, keyFile: URL, passphrase: String? = nil) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.passphrase = passphrase
    }
}
