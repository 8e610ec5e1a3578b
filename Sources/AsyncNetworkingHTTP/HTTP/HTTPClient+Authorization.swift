import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Authorization: header values set client-wide (AFNetworking's
/// `setAuthorizationHeaderFieldWithUsername:password:`) or per request (`headers:`), and a
/// credential that answers a `401` Basic challenge.
///
/// ```swift
/// client.setAuthorization(bearerToken: token)                               // every request
/// try await client.get("me", headers: [.authorization(username: "ada", password: "pw")], as: Me.self)
/// try await client.withCredential(URLCredential(user: "ada", password: "pw", persistence: .none)).get("private", as: Doc.self)
/// ```
///
/// For challenges of any scheme on every request to a host, register a credential or a challenge
/// hook on the manager (``SessionManager/setCredential(_:forHost:)``, ``SessionHooks``).
extension HTTPClient {
    /// Sends `Authorization: Basic base64(username:password)` with every request (in
    /// ``defaultHeaders``; a call's own `Authorization` wins).
    public mutating func setAuthorization(username: String, password: String) {
        defaultHeaders.update(.authorization(username: username, password: password))
    }

    /// Sends `Authorization: Bearer <token>` with every request (in ``defaultHeaders``).
    public mutating func setAuthorization(bearerToken token: String) {
        defaultHeaders.update(.authorization(bearerToken: token))
    }

    /// Stops sending a client-wide `Authorization` (AFNetworking's `clearAuthorizationHeader`).
    public mutating func clearAuthorization() {
        defaultHeaders.remove(name: "Authorization")
    }

    /// A copy whose requests answer a `401` Basic challenge with `credential` (see ``credential``):
    /// a per-request credential for challenge-based authentication.
    public func withCredential(_ credential: URLCredential?) -> HTTPClient {
        var copy = self
        copy.credential = credential
        return copy
    }

    /// The request to send again after `response`, when it is a `401` with a Basic challenge from
    /// the request's own origin, the request carried no `Authorization` and ``credential`` has a
    /// user and a password. A 401 from another origin (after a redirect) is the result: the
    /// credential is given for the request's origin and never answers anyone else's challenge.
    func challengeRetry(of request: URLRequest, after response: HTTPURLResponse) -> URLRequest? {
        guard response.statusCode == 401, RedirectRules.isSameOrigin(request.url, response.url ?? request.url),
              let credential, let user = credential.user, let password = credential.password,
              request.value(forHTTPHeaderField: "Authorization") == nil,
              let challenge = response.value(forHTTPHeaderField: "WWW-Authenticate"),
              Self.offersBasic(challenge)
        else { return nil }
        var retry = request
        retry.setHeaders([.authorization(username: user, password: password)])
        return retry
    }

    /// Whether a `WWW-Authenticate` value offers the Basic scheme anywhere in its list of
    /// challenges (RFC 9110 §11.6.1; a "Basic" inside a quoted parameter is not one).
    static func offersBasic(_ challenge: String) -> Bool {
        AuthenticationChallenge.first("basic", in: AuthenticationChallenge.parse(challenge)) != nil
    }
}
