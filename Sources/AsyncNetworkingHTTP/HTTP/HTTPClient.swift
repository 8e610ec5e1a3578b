import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP client over a ``SessionManager``: base URL, verbs, request and response serialization
/// (AFNetworking's `AFHTTPSessionManager`, for async/await).
///
/// ```swift
/// let client = HTTPClient(baseURL: URL(string: "https://api.example.com/v1"))   // on SessionManager.shared
/// let user = try await client.get("users/42", as: User.self)              // GET /v1/users/42
/// let hits = try await client.get("search", parameters: ["q": "swift"], as: [Hit].self)
/// let made = try await client.post("users", parameters: .encodable(NewUser(name: "Ada")), as: User.self)
/// let handle = try await client.dataTask(.get, "files/big")              // progress loop
/// for try await event in handle.events { ... }
/// ```
///
/// `HTTPClient` is a value: copies share the manager (and so its connections, hooks and
/// credentials) but not their settings, so a per-request variation is a copy:
/// `var quick = client; quick.timeoutInterval = 2`.
///
/// Hooks (redirects, authentication challenges, caching, responses) and per-host credentials live
/// on the manager: `await client.manager.setHooks(SessionHooks(redirect: { ... }))`,
/// `await client.manager.setCredential(credential, forHost: "api.example.com")`.
public struct HTTPClient: Sendable {
    /// The manager that runs the transfers: ``SessionManager/shared`` unless the client was given
    /// one. Hooks and credentials are set on it (on the shared manager, for the whole process).
    public let manager: SessionManager

    /// Relative paths resolve against this URL (RFC 3986, `..` included); absolute URLs ignore it.
    /// A base URL with a path gets a terminal `/` when set (AFNetworking's rule), so
    /// `https://h/v1` + `users` is `https://h/v1/users`. Default `nil`: every URL must be absolute.
    public var baseURL: URL? {
        get { storedBaseURL }
        set { storedBaseURL = newValue.map(Self.normalizedBaseURL) }
    }
    private var storedBaseURL: URL?

    /// Encodes parameters into the query or the body. Default ``URLEncodedRequestSerializer``.
    public var requestSerializer: any RequestSerializer

    /// Headers added to every request that does not set them itself (a call's `headers` win).
    /// Default ``DefaultHeaders/standard`` (`Accept-Language` and `User-Agent` built from the process).
    ///
    /// ``HTTPHeaders`` keep their order and match names case-insensitively; a dictionary literal works.
    public var defaultHeaders: HTTPHeaders

    /// Each request's idle timeout in seconds (`URLRequest.timeoutInterval`). Default 60, as
    /// AFNetworking. Expiry fails the attempt with ``NetworkingError/Kind/transport(_:)`` `.timedOut`.
    ///
    /// It bounds each wait for data, not the whole call: for that, set ``deadline``. On Linux,
    /// FoundationNetworking truncates it to whole seconds and treats 0 as "no timeout", so a
    /// fraction is rounded *up* here (0.2 becomes 1) rather than silently disabling the timeout.
    ///
    /// **With retries.** The awaiting calls retry by default (``pipeline``'s
    /// ``DefaultRetryPolicy``), but a timeout you set is the timeout you see: without a
    /// ``deadline``, retries must start within `timeoutInterval` of the call's start, so a timed-out
    /// attempt is not retried — `timeoutInterval = 2` against a silent server fails after about
    /// 2 s, with ``NetworkingError/attemptCount`` 1. Quicker failures (a `503`, a refused
    /// connection) are still retried inside that window. With a ``deadline``, timeouts too are
    /// retried until it passes.
    public var timeoutInterval: TimeInterval

    /// The total limit on each call of this client, ``RequestDeadline/after(_:)`` a duration or
    /// ``RequestDeadline/at(_:)`` an instant; `nil` (the default) for none. It is
    /// ``transferOptions``' ``TransferOptions/deadline``.
    ///
    /// It covers the whole call — connecting, redirects, credential retries, every retry of the
    /// ``pipeline`` and its wait, reading and decoding the body — for every awaiting call that runs
    /// the pipeline (the verbs, `request`, ``send(_:serializer:)``, `send` of a ``Request``). The
    /// calls that are one transfer each — uploads, multipart forms, downloads (an automatic resume
    /// keeps the same deadline), `task` and `dataTask` handles — get it from when their transfer
    /// starts (after a multipart body was encoded or a stream spooled). Server-Sent Events
    /// (``events(_:parameters:headers:configuration:)``) reconnect without end and do not take it.
    /// When it passes, the call fails with
    /// ``NetworkingError/Kind/deadlineExceeded`` (the idle ``timeoutInterval`` fails an attempt
    /// with `.transport(.timedOut)` instead); the error's ``NetworkingError/attemptCount`` says how
    /// many attempts were made. For one call, use a copy (`var quick = client; quick.deadline =
    /// .after(.seconds(2))`) or ``Request/deadline(_:)``.
    public var deadline: RequestDeadline? {
        get { transferOptions.deadline }
        set { transferOptions.deadline = newValue }
    }

    /// Each request's cache policy. Default `.useProtocolCachePolicy`. Only ``cache`` reads it
    /// (see <doc:Caching> for each policy); without a cache nothing is cached (URLSession on
    /// Linux stores nothing, and the curl transport has no cache).
    public var cachePolicy: URLRequest.CachePolicy

    /// Options for each transfer: ``TransferOptions/maxResponseBytes``, buffering, priority.
    /// Default ``TransferOptions/default``.
    public var transferOptions: TransferOptions

    /// What the verb forms without `as:` or `serializer:` return (AFNetworking's `responseSerializer`).
    /// Default ``JSONResponseSerializer``. A call that passes `serializer:` uses that one instead.
    public var responseSerializer: any ResponseSerializer

    /// Client-wide changes to the validation of every call that does not pass its own serializer
    /// (the `as:` forms, the untyped forms and the tasks, uploads, multipart and downloads):
    /// acceptable status codes and content types. Default: no change. See ``ClientValidation``.
    public var validation: ClientValidation

    /// Decodes the `as:` forms' JSON when the call passes no `decoder:`. Default: a new `JSONDecoder`.
    /// A `JSONDecoder` is a class that copies of the client share: assign a configured decoder
    /// rather than changing the strategies of one in use.
    public var decoder: JSONDecoder

    /// Answers a `401` challenge (`WWW-Authenticate: Basic`) of a request that carries no
    /// `Authorization`: the request is sent once more with this credential (by every awaiting call:
    /// the verbs, ``send(_:serializer:)`` and `send` of a ``Request``; the task, upload, multipart and
    /// download forms deliver the `401`).
    /// Default `nil`. Set it on a copy for one request: `try await client.withCredential(credential).get(...)`.
    public var credential: URLCredential?

    /// Adapters, authenticator, retry policy and monitors of every awaiting call: the verbs (`get`,
    /// `post`, …), ``send(_:serializer:)`` and ``send(_:decoder:progress:)`` all run this pipeline.
    /// Default: no adapters, no authenticator, ``DefaultRetryPolicy`` (idempotent requests on
    /// transient failures, at most 3 attempts), no monitors. ``NoRetryPolicy`` sends once, as
    /// AFNetworking's verbs did. Handle-returning calls (`dataTask`, `task`, streams) do not use it.
    public var pipeline = PipelineConfiguration()
    /// The HTTP cache the verbs, ``send(_:serializer:)`` and the request pipeline's `send(Request)`
    /// (around each attempt, inside its retries) go through (RFC 9111, `GET` only;
    /// see ``HTTPCache`` and <doc:Caching>). Default `nil`: no cache. One line turns it on:
    /// `client.cache = HTTPCache(memoryCapacity: 8 << 20)`. ``dataTask(_:_:parameters:headers:)``
    /// and the manager's own methods never use it.
    public var cache: HTTPCache?

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - manager: runs the transfers. Default: ``SessionManager/shared``, the process-wide
    ///     manager (one curl loop thread and one connection pool however many clients use it;
    ///     never invalidated). Pass a manager of your own for another configuration, a security
    ///     policy, hooks, credentials, a cookie jar or a shutdown of its own.
    ///   - baseURL: see ``baseURL``. Default `nil`.
    ///   - requestSerializer: see ``requestSerializer``. Default ``URLEncodedRequestSerializer``.
    ///   - defaultHeaders: see ``defaultHeaders``. Default ``HTTPHeaders/standard``.
    public init(
        manager: SessionManager = .shared,
        baseURL: URL? = nil,
        requestSerializer: any RequestSerializer = URLEncodedRequestSerializer(),
        defaultHeaders: HTTPHeaders = .standard
    ) {
        self.manager = manager
        self.storedBaseURL = baseURL.map(Self.normalizedBaseURL)
        self.requestSerializer = requestSerializer
        self.defaultHeaders = defaultHeaders
        self.timeoutInterval = 60
        self.cachePolicy = .useProtocolCachePolicy
        self.transferOptions = .default
        self.responseSerializer = JSONResponseSerializer()
        self.validation = ClientValidation()
        self.decoder = JSONDecoder()
        self.credential = nil
    }

    /// Resolves `url` against ``baseURL``, or throws.
    ///
    /// - Throws: ``NetworkingError/Kind/invalidURL`` or ``NetworkingError/Kind/unsupportedScheme(_:)``.
    public func resolve(_ url: some URLConvertible) throws(NetworkingError) -> URL {
        let resolved = try url.resolved(against: baseURL)
        try RequestValidation.validate(resolved)
        return resolved
    }

    /// Builds the request a verb would send, without sending it (AFNetworking's
    /// `requestWithMethod:URLString:parameters:error:`): the URL resolved against ``baseURL``, the
    /// method, ``timeoutInterval``, ``cachePolicy``, ``defaultHeaders`` overridden by `headers`,
    /// then `parameters` encoded by ``requestSerializer``.
    ///
    /// - Throws: ``NetworkingError/Kind/invalidURL``, ``NetworkingError/Kind/unsupportedScheme(_:)``
    ///   or ``NetworkingError/Kind/requestSerializationFailed``; nothing is sent.
    public func makeRequest(
        _ method: HTTPMethod, _ url: some URLConvertible,
        parameters: Parameters? = nil, headers: HTTPHeaders = [:]
    ) throws(NetworkingError) -> URLRequest {
        var request = URLRequest(url: try resolve(url))
        request.cachePolicy = cachePolicy
        // Set through the property: on Linux the initializer's timeout is ignored by URLSession.
        request.timeoutInterval = effectiveTimeoutInterval
        request.httpMethod = method.rawValue
        request.setHeaders(defaultHeaders.merging(headers))
        return try requestSerializer.serialize(request, with: parameters)
    }

    /// ``timeoutInterval`` as URLSession will honour it: on Linux whole seconds, rounded up.
    var effectiveTimeoutInterval: TimeInterval {
        #if canImport(FoundationNetworking)
        return timeoutInterval > 0 ? timeoutInterval.rounded(.up) : timeoutInterval
        #else
        return timeoutInterval
        #endif
    }
}
