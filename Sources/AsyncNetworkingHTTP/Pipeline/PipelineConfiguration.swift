import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client's request pipeline: what runs around each attempt of a ``Request`` sent with
/// ``HTTPClient/send(_:decoder:progress:)`` — adapters, credential, retries and monitors.
///
/// It lives in ``HTTPClient/pipeline``; copies of a client share what its members hold by
/// reference (a ``RetryBudget``, an ``AuthenticationInterceptor``), so a per-call copy with
/// another setting still draws from the same budget and credential.
///
/// For each request: build the `URLRequest` → for each attempt: ``adapters`` then the request's
/// own adapters then ``authenticator`` → send → on a refused credential, renew and retry once →
/// pre-process, validate, decode → on failure ask the retry policy, wait, and go again.
public struct PipelineConfiguration: Sendable {
    /// Adapters run before every attempt, in order, before the request's own. Default none.
    public var adapters: [any RequestAdapter]
    /// Adds and renews a credential (usually an ``AuthenticationInterceptor``); runs after every
    /// other adapter. Default `nil`.
    public var authenticator: (any AuthenticatingAdapter)?
    /// Decides retries when the request has no policy of its own. Default
    /// ``DefaultRetryPolicy`` with a budget of its own (shared by copies of the client).
    public var retryPolicy: any RetryPolicy
    /// Receive every step of every request. Default none.
    public var monitors: [any EventMonitor]

    /// The seam for a layer that answers or records attempts (the HTTP cache): it gets each
    /// adapted attempt's request and the network attempt, and returns the attempt's result —
    /// from storage without calling `network`, or after calling it (with conditional headers
    /// added, say) and storing the response. `nil`: every attempt goes to the network.
    /// Retries, credential renewal, validation and monitors stay around it.
    var attemptWrapper: AttemptWrapper?

    /// See ``attemptWrapper``.
    typealias AttemptWrapper = @Sendable (
        _ request: URLRequest, _ network: @escaping @Sendable (URLRequest) async -> AttemptResult
    ) async -> AttemptResult

    /// Creates a configuration; every argument has the default described on its property.
    public init(
        adapters: [any RequestAdapter] = [],
        authenticator: (any AuthenticatingAdapter)? = nil,
        retryPolicy: any RetryPolicy = DefaultRetryPolicy(),
        monitors: [any EventMonitor] = []
    ) {
        self.adapters = adapters
        self.authenticator = authenticator
        self.retryPolicy = retryPolicy
        self.monitors = monitors
    }
}
