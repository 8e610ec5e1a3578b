import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A credential that knows when it has expired (an OAuth access token, say).
public protocol AuthenticationCredential: Sendable {
    /// Whether it must be refreshed before its next use (for example, it expires within a minute).
    var requiresRefresh: Bool { get }
}

/// How an ``AuthenticationInterceptor`` uses and renews a credential (Alamofire's `Authenticator`).
public protocol Authenticator: Sendable {
    /// The credential.
    associatedtype Credential: AuthenticationCredential

    /// Puts `credential` on `request` (typically `Authorization: Bearer …`).
    func apply(_ credential: Credential, to request: inout URLRequest)

    /// Gets a new credential. `credential` is the one that expired or was refused, or `nil` when
    /// there was none. Runs at most once at a time per interceptor, on its own task: a caller that
    /// stops waiting does not cancel it.
    func refresh(_ credential: Credential?) async throws -> Credential

    /// Whether `response` to `request` means the credential was refused. Default: status 401.
    func didRequest(_ request: URLRequest, with response: HTTPURLResponse) -> Bool

    /// Whether `request` was sent with `credential`. Default: `Authorization` is the same as
    /// ``apply(_:to:)`` would set.
    func isRequest(_ request: URLRequest, authenticatedWith credential: Credential) -> Bool
}

extension Authenticator {
    /// Status 401.
    public func didRequest(_ request: URLRequest, with response: HTTPURLResponse) -> Bool {
        response.statusCode == 401
    }

    /// Compares `Authorization` with what ``apply(_:to:)`` sets.
    public func isRequest(_ request: URLRequest, authenticatedWith credential: Credential) -> Bool {
        var applied = request
        apply(credential, to: &applied)
        return applied.value(forHTTPHeaderField: "Authorization") == request.value(forHTTPHeaderField: "Authorization")
    }
}

/// An adapter that can also ask for one immediate retry after a response, having renewed what
/// it adds (``AuthenticationInterceptor``). Set it as ``PipelineConfiguration/authenticator``.
public protocol AuthenticatingAdapter: RequestAdapter {
    /// Whether `request`, answered with `response`, should be sent once more at once (after the
    /// credential was renewed, or because a newer one already exists). Suspends while a renewal
    /// runs; cancelling the calling task ends that wait at once with
    /// ``NetworkingError/Kind/cancelled``.
    ///
    /// - Throws: the renewal's failure.
    func shouldRetry(_ request: URLRequest, response: HTTPURLResponse) async throws(NetworkingError) -> Bool
}
