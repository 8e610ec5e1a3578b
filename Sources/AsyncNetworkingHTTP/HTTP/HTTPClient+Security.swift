import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A TLS ``SecurityPolicy`` for the client's base URL host (AFNetworking's
/// `AFHTTPSessionManager.securityPolicy`), with AFNetworking's rule: a pinning policy needs an
/// `https` base URL, and a mismatch is an error when the client is made, not at its first request.
///
/// ```swift
/// let client = try HTTPClient(baseURL: URL(string: "https://api.example.com"),
///                             securityPolicy: .pinnedPublicKeys([pin, nextPin]))
/// ```
///
/// The policy is installed on the manager for the base URL's host (``SessionManager/setSecurityPolicy(_:forHost:)``),
/// so every client sharing the manager uses it for that host; other hosts keep theirs.
extension HTTPClient {
    /// Creates a client whose base URL host is held to `securityPolicy`.
    ///
    /// The policy is installed on the manager's executor before any request this client (or any
    /// code after this call) starts on it. See ``init(manager:baseURL:requestSerializer:defaultHeaders:)``
    /// for the other parameters.
    ///
    /// Without `manager`, the client gets a new ``SessionManager`` of its own (default
    /// configuration), not ``SessionManager/shared``: a policy installed there would hold every
    /// user of the process to it for that host.
    ///
    /// - Throws: ``NetworkingError/Kind/pinningRequiresHTTPS`` when the policy pins keys or
    ///   certificates and `baseURL` is missing or not `https`; nothing is installed.
    public init(
        manager: SessionManager = SessionManager(),
        baseURL: URL?,
        securityPolicy: SecurityPolicy,
        requestSerializer: any RequestSerializer = URLEncodedRequestSerializer(),
        defaultHeaders: HTTPHeaders = .standard
    ) throws(NetworkingError) {
        try Self.checkPolicy(securityPolicy, baseURL: baseURL)
        self.init(manager: manager, baseURL: baseURL, requestSerializer: requestSerializer, defaultHeaders: defaultHeaders)
        if let host = baseURL?.host {
            manager.perform { $0.setSecurityPolicy(securityPolicy, forHost: host) }
        }
    }

    /// Holds the base URL's host to `policy` from now on (for every client of this manager).
    ///
    /// - Throws: ``NetworkingError/Kind/pinningRequiresHTTPS`` when `policy` pins keys or
    ///   certificates and ``baseURL`` is missing or not `https`; ``NetworkingError/Kind/invalidURL``
    ///   when there is no base URL host to apply any other policy to. Nothing changes then.
    public func setSecurityPolicy(_ policy: SecurityPolicy) async throws(NetworkingError) {
        try Self.checkPolicy(policy, baseURL: baseURL)
        guard let host = baseURL?.host else {
            throw NetworkingError(.invalidURL, "a security policy for the client needs a base URL with a host")
        }
        await manager.setSecurityPolicy(policy, forHost: host)
    }

    /// The security policy requests to the base URL's host run under, or `nil` without a base URL.
    public var securityPolicy: SecurityPolicy? {
        get async {
            guard let host = baseURL?.host else { return nil }
            return await manager.securityPolicy(forHost: host)
        }
    }

    /// AFNetworking's rule: a pinning policy needs an https base URL.
    static func checkPolicy(_ policy: SecurityPolicy, baseURL: URL?) throws(NetworkingError) {
        let pins = switch policy.evaluation {
        case .pinnedPublicKeys, .pinnedCertificates: true
        case .default, .customRoots, .disabled: false
        }
        guard pins, baseURL?.scheme?.lowercased() != "https" else { return }
        throw NetworkingError(
            .pinningRequiresHTTPS,
            "a pinning security policy needs an https base URL (the client's is \(baseURL.map { Redaction.url($0) } ?? "missing"))"
        )
    }
}
