import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What makes two calls "identical" for coalescing: the request that would go on the wire is the
/// same for both, and so is what happens to its response.
///
/// **The rule:** two calls may share a transfer only when, at the moment each is made, the manager
/// would send the same request — the same `GET` without body to the same URL (user info
/// included), with the same header fields *after* the configuration's headers and the cookie
/// jar's `Cookie` are applied (names compared case-insensitively, values exactly, order ignored),
/// the same timeout and cache policy — through the same route and under the same rules: the same
/// ``ProxyConfiguration``, the same ``SecurityPolicy`` for the host, the same stored credential for
/// the host (which would answer a 401), the same hooks; and when the response is handled the same
/// way: the same `httpShouldHandleCookies` (whether its `Set-Cookie` are stored), the same
/// ``TransferOptions`` (apart from ``TransferOptions/coalescesIdenticalRequests`` itself), the same
/// front door. The key is derived from that final request by the manager
/// (``SessionManager/coalescingKey(for:options:door:)``), never from the caller's `URLRequest` alone.
package struct CoalescingKey: Hashable, Sendable {
    /// What the manager decides outside the request, as it stands when a call is made.
    package struct Manager: Hashable, Sendable {
        /// The manager's route configuration.
        var proxy: ProxyConfiguration
        /// The security policy for the request's host.
        var policy: SecurityPolicy
        /// The credential stored for the host (user and password), which would answer a 401.
        var credentialUser: String?
        var credentialPassword: String?
        /// Which hooks are set (``SessionManager/setHooks(_:)`` replacements).
        var hooksGeneration: UInt64
    }

    let url: String
    let headers: [String: String]
    let timeout: TimeInterval
    let cachePolicy: UInt
    let handlesCookies: Bool
    let options: TransferOptions
    /// Which front door (the manager's `data(for:)` or an ``HTTPClient`` call): results differ in kind.
    let door: String
    let manager: Manager?

    /// `nil` when `request` may not share a transfer: not a `GET`, or it has a body. `request` is
    /// the request as it would be sent (configuration headers and cookies applied); `manager` is
    /// the manager's state for it.
    package init?(_ request: URLRequest, options: TransferOptions, door: String, manager: Manager? = nil) {
        guard (request.httpMethod ?? "GET").uppercased() == "GET", request.httpBody == nil,
              request.httpBodyStream == nil, let url = request.url else { return nil }
        self.url = url.absoluteString
        var headers: [String: String] = [:]
        for (name, value) in request.allHTTPHeaderFields ?? [:] { headers[name.lowercased()] = value }
        self.headers = headers
        self.timeout = request.timeoutInterval
        self.cachePolicy = request.cachePolicy.rawValue
        self.handlesCookies = request.httpShouldHandleCookies
        var options = options
        options.coalescesIdenticalRequests = false
        options.completionHold = nil
        self.options = options
        self.door = door
        self.manager = manager
    }
}

extension SessionManager {
    /// The coalescing key of `request` as this manager would send it now (see ``CoalescingKey``):
    /// the configuration's headers and the jar's cookies applied, with the route, the host's
    /// security policy and stored credential, and the hooks. `nil` when it may not share a transfer.
    package func coalescingKey(for request: URLRequest, options: TransferOptions, door: String) -> CoalescingKey? {
        guard let url = request.url else { return nil }
        // A jar whose Cookie field breaks the header rule fails the launch; such a call shares nothing.
        guard let wire = try? addingCookies(to: configurationHeaders.applied(to: request), handlesCookies: request.httpShouldHandleCookies) else { return nil }
        let credential = url.host.flatMap { credentials[$0.lowercased()] }
        let manager = CoalescingKey.Manager(
            proxy: proxy, policy: securityPolicies.policy(forHost: url.host),
            credentialUser: credential?.user, credentialPassword: credential?.password, hooksGeneration: hooksGeneration
        )
        return CoalescingKey(wire, options: options, door: door, manager: manager)
    }
}
