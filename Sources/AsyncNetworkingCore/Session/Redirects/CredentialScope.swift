import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the credentials a transfer carries may go (pure values, used by the Session layer).
///
/// **The rule:** no credential from any source — the request's own `Authorization`, `Cookie` and
/// `Proxy-Authorization`, the configuration's `httpAdditionalHeaders`, a credential that answered
/// a challenge (from ``SessionHooks/challenge`` or ``SessionManager/setCredential(_:forHost:)``),
/// an adapter's or authenticator's header (those are request headers) — is ever sent to an origin
/// (scheme, host, port) other than the one it was given for, and the transport sends exactly the
/// request the Session layer built.
///
/// - Request headers and configuration headers are given for the origin of the request the caller
///   made. The configuration's headers are merged into the transfer's request when it is
///   registered (a request's own field wins), so from then on they are request headers: the
///   redirect rules (``RedirectRules``) remove the credential-bearing ones whenever a redirect
///   changes origin, for every status and on every transport, and a redirect hook sees exactly
///   what will be sent. A header removed that way does not come back by itself.
/// - A credential that answered a challenge is scoped to the challenge's protection space: it is
///   added (as `Authorization: Basic`) to each attempt that goes to that origin, and only to those
///   — so a redirect back to it sends it again, a redirect elsewhere never does.
/// - `http` and `https` on the same host are different origins (as for browsers, curl and
///   `URLSession`): an upgrade redirect drops the credentials as well.
enum CredentialScope {
    /// Whether a header field carries a credential (`Authorization`, `Cookie`, `Proxy-Authorization`).
    static func isCredentialHeader(_ name: String) -> Bool {
        RedirectRules.credentialHeaders.contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// A copy of `configuration` for `URLSession` without the credential-bearing
    /// `httpAdditionalHeaders`: FoundationNetworking adds those to every request it sends, redirects
    /// included, below the redirect rules. The Session layer merges them instead
    /// (``ConfigurationHeaders``). Returns `configuration` itself when it has none.
    static func sessionConfiguration(_ configuration: URLSessionConfiguration) -> URLSessionConfiguration {
        guard let headers = configuration.httpAdditionalHeaders,
              headers.keys.contains(where: { ($0 as? String).map(isCredentialHeader) ?? false }),
              let copy = configuration.copy() as? URLSessionConfiguration
        else { return configuration }
        copy.httpAdditionalHeaders = headers.filter { key, _ in !((key as? String).map(isCredentialHeader) ?? false) }
        return copy
    }
}

/// The configuration's `httpAdditionalHeaders`, merged into each transfer's request by the Session
/// layer (see ``CredentialScope``).
struct ConfigurationHeaders: Sendable {
    /// One header field.
    struct Field: Sendable {
        var name: String
        var value: String
    }

    let fields: [Field]

    init(_ configuration: URLSessionConfiguration) {
        var fields: [Field] = (configuration.httpAdditionalHeaders ?? [:]).compactMap { key, value in
            guard let name = key as? String else { return nil }
            return Field(name: name, value: "\(value)")
        }
        // The default User-Agent, unless the configuration names its own (a request's own wins too).
        if !fields.contains(where: { $0.name.caseInsensitiveCompare("User-Agent") == .orderedSame }) {
            fields.append(Field(name: "User-Agent", value: AsyncNetworkingVersion.userAgent))
        }
        self.fields = fields.sorted { $0.name < $1.name }
    }

    /// Why a field breaks the one header rule (``HeaderFieldValidation``), or `nil`.
    var problem: String? {
        HeaderFieldValidation.problem(in: fields.lazy.map { (name: $0.name, value: $0.value) })
    }

    /// `request` with every configuration field it does not set itself.
    func applied(to request: URLRequest) -> URLRequest {
        guard !fields.isEmpty else { return request }
        var merged = request
        for field in fields where merged.value(forHTTPHeaderField: field.name) == nil {
            merged.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return merged
    }
}

/// A credential that answered a challenge, with the origin of the challenge's protection space:
/// it goes only to requests for that origin (see ``CredentialScope``).
struct ScopedCredential {
    let credential: URLCredential
    let scheme: String
    let host: String
    let port: Int

    /// `nil` when the protection space names no host.
    init?(_ credential: URLCredential, space: URLProtectionSpace) {
        guard !space.host.isEmpty else { return nil }
        let scheme = (space.protocol ?? "http").lowercased()
        self.credential = credential
        self.scheme = scheme
        self.host = space.host.lowercased()
        self.port = space.port > 0 ? space.port : (scheme == "https" ? 443 : 80)
    }

    /// Whether `url` is the protection space's origin.
    func covers(_ url: URL?) -> Bool {
        guard let url, let urlScheme = url.scheme?.lowercased() else { return false }
        let urlPort = url.port ?? (urlScheme == "https" ? 443 : urlScheme == "http" ? 80 : -1)
        return urlScheme == scheme && url.host?.lowercased() == host && urlPort == port
    }

    /// `request` with `Authorization: Basic …` when it goes to the protection space's origin and
    /// sets no `Authorization` of its own; otherwise `request` unchanged.
    func applied(to request: URLRequest) -> URLRequest {
        guard covers(request.url), request.value(forHTTPHeaderField: "Authorization") == nil,
              let user = credential.user, let password = credential.password else { return request }
        var authorized = request
        authorized.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        return authorized
    }
}
