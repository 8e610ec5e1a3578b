import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Async closures that customise how the manager reacts to URLSession's decisions — AFNetworking's
/// block properties (`setTaskWillPerformHTTPRedirectionBlock:`, `setTaskDidReceiveAuthenticationChallengeBlock:`,
/// `setDataTaskWillCacheResponseBlock:`, `setDataTaskDidReceiveResponseBlock:`).
///
/// Set them with ``SessionManager/setHooks(_:)``. Each runs off the manager's executor; while it
/// runs, the transfer waits (for a response hook, its body is held back until the hook decides).
public struct SessionHooks: Sendable {
    /// Decides a redirect: return the request to follow (as proposed, or modified), or `nil` to
    /// refuse — the 3xx response and its body are then delivered as the transfer's result.
    ///
    /// The returned request is what is sent: its URL, method and headers (a 307/308 of a request
    /// with a body re-sends the transfer's body with it, unless the method became GET or HEAD).
    /// The proposal already lacks `Authorization`, `Cookie` and `Proxy-Authorization` when the
    /// origin changes; add them back only on purpose. Only `http` and `https` URLs are followed:
    /// anything else fails the transfer with ``NetworkingError/Kind/unsupportedScheme(_:)``.
    /// Cancelling the transfer while the hook runs is safe: its answer is then ignored.
    public typealias Redirect = @Sendable (_ redirect: RedirectContext) async -> URLRequest?
    /// Answers an authentication challenge for a transfer: a 401's Basic challenge (wherever the
    /// `WWW-Authenticate` fields list it), whose protection space is the origin, or — on the curl
    /// transport — a proxy's 407 to an absolute-form request, whose protection space is the proxy
    /// (`isProxy()` true, its host and port): a credential given for it goes to that proxy only,
    /// as `Proxy-Authorization`. See <doc:Security>.
    public typealias Challenge = @Sendable (_ challenge: ChallengeContext) async -> ChallengeDisposition
    /// Runs where a response is about to be stored (AFNetworking's `setDataTaskWillCacheResponseBlock:`):
    /// returns what to store — the proposal, or a changed response or body — or `nil` to store nothing.
    ///
    /// On Linux, on both transports, that place is the ``HTTPCache`` of an ``HTTPClient`` built on
    /// this manager (``HTTPClient/cache``): the hook sees each response the cache's rules allow it
    /// to store, and each stored response a `304` updated (see
    /// ``HTTPCache/exchange(_:willStore:attempt:)``). Transfers made with the manager alone are not
    /// cached there, and FoundationNetworking's `URLCache` never asks (its `willCacheResponse` is
    /// never called on Linux); on Apple platforms the hook also answers URLSession's
    /// `willCacheResponse` for a configuration with a `urlCache`.
    public typealias Cache = @Sendable (_ proposed: CachedURLResponse) async -> CachedURLResponse?
    /// Decides whether to go on with a transfer once its final response head has arrived.
    public typealias Response = @Sendable (_ response: HTTPURLResponse, _ request: URLRequest) async -> ResponseDisposition

    /// Redirect hook; `nil` follows every http/https redirect URLSession proposes, without
    /// credentials when the origin changes.
    public var redirect: Redirect?
    /// Challenge hook; `nil` answers a 401 with the credential registered with
    /// ``SessionManager/setCredential(_:forHost:)``, else refuses — and always refuses a 407 (the
    /// registered credentials are origins', never a proxy's).
    public var challenge: Challenge?
    /// Cache hook; `nil` stores what is proposed.
    public var cache: Cache?
    /// Response hook; `nil` allows every response.
    public var response: Response?

    /// Creates hooks; each defaults to `nil` (URLSession's usual behaviour, made safe on Linux).
    public init(redirect: Redirect? = nil, challenge: Challenge? = nil, cache: Cache? = nil, response: Response? = nil) {
        self.redirect = redirect
        self.challenge = challenge
        self.cache = cache
        self.response = response
    }
}

/// A redirect URLSession proposes to follow.
public struct RedirectContext: Sendable {
    /// The transfer being redirected.
    public let transfer: TransferID
    /// The request the transfer started with.
    public let originalRequest: URLRequest
    /// The 3xx response.
    public let response: HTTPURLResponse
    /// The request that will be sent if the hook returns it: URLSession's proposal (for 307/308
    /// with a body, the current request sent to the new URL), without `Authorization`, `Cookie`
    /// and `Proxy-Authorization` when scheme, host or port change.
    public let proposedRequest: URLRequest
    /// How many redirects this transfer has already followed.
    public let redirectCount: Int
}

/// An authentication challenge for a transfer.
public struct ChallengeContext: Sendable {
    /// The transfer challenged.
    public let transfer: TransferID
    /// URLSession's challenge (protection space, previous failure count, the 401/407 response).
    public let challenge: URLAuthenticationChallenge
    /// The host asking, for choosing a per-host credential: the proxy's for a 407
    /// (`challenge.protectionSpace.isProxy()`).
    public var host: String { challenge.protectionSpace.host }
    /// The authentication method (`NSURLAuthenticationMethodHTTPBasic`, `...HTTPDigest`, ...).
    public var authenticationMethod: String { challenge.protectionSpace.authenticationMethod }
    /// How many credentials were already rejected for this transfer.
    public var previousFailureCount: Int { challenge.previousFailureCount }
}

/// How to answer an authentication challenge.
///
/// On Linux, URLSession hangs on a 401 with `WWW-Authenticate` unless the challenge is answered, and
/// retries a rejected credential forever; the manager therefore refuses when there is no credential,
/// and after ``SessionManager/maxAuthenticationAttempts`` rejected attempts.
public enum ChallengeDisposition: Sendable {
    /// Retry the request with this credential.
    case useCredential(URLCredential)
    /// Give up: the 401/407 response already received becomes the transfer's result.
    case refuse
}

/// Whether to go on with a transfer after its response head.
public enum ResponseDisposition: Sendable {
    /// Deliver the body.
    case allow
    /// Cancel the transfer; it fails with ``NetworkingError/Kind/cancelled``.
    case cancel
    /// Turn the data transfer into a download (`NSURLSessionResponseBecomeDownload`): the body goes
    /// to a file at `destination` instead of the event stream, exactly as for
    /// ``SessionManager/downloadTask(with:to:options:)``. The handle's events then carry
    /// `.response`, `.downloadProgress`, `.downloaded(url)` and `.completed`; the transfer is listed
    /// as a download and can be paused like one. Only ``DownloadOptions/createIntermediateDirectories``,
    /// ``DownloadOptions/replaceExisting``, ``DownloadOptions/maxErrorBodyBytes`` and
    /// ``DownloadOptions/temporaryDirectory`` of `options` apply.
    ///
    /// A status other than 2xx is never written to the file: the transfer fails with
    /// ``NetworkingError/Kind/unacceptableStatusCode(_:)``. A bad destination fails it with the
    /// download's usual error (``NetworkingError/Kind/fileWriteFailed``). Only a transfer with an
    /// event stream can become a download: for an awaiting call (`data(for:)`, which returns the
    /// body in memory) it fails with ``NetworkingError/Kind/unsupportedOperation``; a transfer that
    /// already is a download simply goes on.
    case becomeDownload(to: DownloadDestination, options: DownloadOptions = .default)
}
