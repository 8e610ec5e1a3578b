import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The heart of AsyncNetworking: the registry of a session's transfers, owned by an actor instead
/// of a lock (AFNetworking's `AFURLSessionManager`), over one of two transports.
///
/// - **curl** (the Linux default): libcurl's multi interface driven by a thread of the manager's
///   own, which is also the actor's executor (events enter the actor with no thread hop); per-transfer flow control (a slow
///   consumer pauses only its own transfer), real `suspend()`/`resume()`, connection metrics.
/// - **URLSession** (the default on Apple platforms; `SessionManager(transport: .urlSession)` or
///   `ASYNCNETWORKING_TRANSPORT=urlsession` on Linux): the actor runs on the same serial queue
///   URLSession delivers delegate callbacks on, so callbacks enter it synchronously and in order.
///
/// Each transfer's callbacks feed its own event stream (``TransferEvents``), registered before the
/// transfer starts. Redirects, challenges, limits and cancellation follow the same rules on both.
///
/// ```swift
/// let manager = SessionManager()
/// let (body, response) = try await manager.data(from: url)
/// let handle = try await manager.dataTask(with: URLRequest(url: url))
/// for try await event in handle.events { ... }
/// await manager.invalidateAndCancel()
/// ```
///
/// On URLSession on Linux the manager works around FoundationNetworking's known problems: it
/// answers authentication challenges (a 401 would otherwise hang), never calls `suspend()` on a
/// running URLSession task (it restarts the transfer from byte 0), ignores `1xx` responses, keeps
/// its own byte counters and timings, and bounds stream memory itself.
public actor SessionManager {
    /// The serial queue behind URLSession's delegate queue; the actor's executor on that transport,
    /// and where jobs go on curl once the loop thread has exited.
    nonisolated let executor: QueueExecutor
    /// The actor's executor: ``executor`` on URLSession; on curl, the loop thread
    /// (`CurlLoopExecutor`), so transport events enter the actor with no hop.
    nonisolated let actorExecutor: any SerialExecutor
    nonisolated let delegate: SessionDelegate
    /// The delegate queue (backpressure on Linux); URLSession calls go through its `bypassing`.
    nonisolated let delegateQueue: DelegateQueue
    /// The URLSession the manager owns (its delegate is the manager). With the curl or stub
    /// transport it carries no transfer; it exists so invalidation reports through one path.
    nonisolated let underlyingSession: URLSession

    /// The underlying URLSession when the manager runs on the URLSession transport, else `nil`
    /// (curl and stubs carry no transfer on it). Its delegate is the manager: do not create tasks
    /// on it directly.
    public nonisolated var urlSession: URLSession? {
        if case .urlSession = engine { return underlyingSession }
        return nil
    }

    /// The URLSession the manager owns, whatever the transport (AFNetworking's `session`). On the
    /// curl transport — the Linux default — no transfer runs on it: use ``urlSession``, which says so.
    @available(*, deprecated, renamed: "urlSession", message: "on the curl transport no transfer runs on this URLSession; urlSession is nil there")
    public nonisolated var session: URLSession { underlyingSession }
    /// The engine behind ``transport``.
    nonisolated let engine: TransportEngine
    /// Whether this is ``shared``, which ``invalidate()`` and ``invalidateAndCancel()`` leave active.
    nonisolated let isShared: Bool

    /// The registry: every transfer not yet finished, by its stable identifier.
    var transfers: [TransferID: TransferState] = [:]
    /// Running transfers by URLSession task identifier, for routing delegate callbacks.
    var transfersByAttempt: [AttemptID: TransferState] = [:]
    /// The last transfer identifier handed out (atomic, so nonisolated calls can reserve one).
    nonisolated let lastTransferID = Atomic<UInt64>(0)
    var scheduler: TransferScheduler
    var lifecycle = Lifecycle.active
    var invalidationWaiters: [UnsafeContinuation<Void, Never>] = []
    /// Why the session became invalid, when it was not asked to (for the activity stream).
    var invalidationError: NetworkingError?
    nonisolated let observers = SessionObservers()
    /// Completions of ``HTTPClient`` calls' transfers that ended before their call settled the
    /// outcome (``CompletionHold``): published when it does, or at invalidation (SessionManager+Activity).
    var heldCompletions: [TransferID: (completion: TransferCompletion, outcome: HeldOutcome)] = [:]
    /// The readers of ``transferActivity(bufferingNewest:includingData:)``.
    nonisolated let activity = ActivityObservers()
    /// Where a download that names no destination goes. See ``setDefaultDownloadDestination(_:)``.
    public internal(set) var defaultDownloadDestination: DownloadDestination = .uniqueTemporaryFile
    package var hooks = SessionHooks() {
        didSet { hooksGeneration &+= 1 }
    }
    /// Counts hook replacements: coalescing keys carry it (``coalescingKey(for:options:door:)``).
    var hooksGeneration: UInt64 = 0
    var credentials: [String: URLCredential] = [:]
    /// The configuration's `httpAdditionalHeaders`, merged into each transfer's request by the
    /// Session layer so the redirect rules govern them (see ``CredentialScope``).
    nonisolated let configurationHeaders: ConfigurationHeaders
    /// The TLS policies: per host, and a default (see ``setSecurityPolicy(_:forHost:)``).
    var securityPolicies: SecurityPolicyTable
    /// Transfers waiting for reachability (see ``setWaitsForConnectivity(_:reachability:)``).
    var connectivityGate: ConnectivityGate?
    /// How transfers reach the network (see ``setProxy(_:)``). Default ``ProxyConfiguration/environment``.
    public internal(set) var proxy = ProxyConfiguration.environment
    /// Where the manager keeps cookies (see ``CookieJar``). Default `nil`: no cookies on curl,
    /// and on URLSession only what its configuration's cookie storage does.
    public nonisolated let cookieJar: CookieJar?
    /// In-flight requests shared by identical callers (``TransferOptions/coalescesIdenticalRequests``).
    package nonisolated let coalescing = Coalescers()
    /// How many transfers ended because a transport never confirmed a cancel within 5 s (the
    /// cancellation watchdog); 0 when every cancel was confirmed or known to be over.
    var cancellationWatchdogFirings = 0
    /// Rejected credentials allowed per transfer before a challenge is refused. Default 2.
    public var maxAuthenticationAttempts = 2

    enum Lifecycle: Equatable {
        case active
        /// `invalidate()` was called: running transfers finish, none start.
        case finishing
        /// `invalidateAndCancel()` was called: running transfers are cancelled.
        case cancelling
        /// URLSession reported the session invalid.
        case invalidated
    }

    /// The actor's executor: the curl loop thread on curl; on URLSession, the serial queue
    /// URLSession delivers delegate callbacks on.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        actorExecutor.asUnownedSerialExecutor()
    }

    /// Creates a manager.
    ///
    /// - Parameters:
    ///   - configuration: the session's configuration. Default: ``defaultConfiguration()``, tuned for
    ///     services (no URL cache, no cookies, no credential storage). Its `httpAdditionalHeaders`
    ///     are merged into each transfer's request by the manager (a request's own field wins), on
    ///     both transports, so `Authorization`, `Cookie` and `Proxy-Authorization` given there never
    ///     follow a redirect to another origin (``session``'s configuration lacks those three). The
    ///     curl transport also reads `timeoutIntervalForRequest`, `timeoutIntervalForResource` and
    ///     `httpMaximumConnectionsPerHost`; it keeps no cookies and no URL cache.
    ///   - maxConcurrentTransfers: at most this many transfers run at once; more wait in priority
    ///     order (see ``TransferOptions/priority``). Default `nil`: no limit beyond the per-host
    ///     connection limit (`httpMaximumConnectionsPerHost`).
    ///   - transport: the engine. Default ``Transport/platformDefault``: curl on Linux, URLSession
    ///     on Apple platforms.
    ///   - securityPolicy: how TLS servers are trusted, for every host without a policy of its own
    ///     (``setSecurityPolicy(_:forHost:)``). Default ``SecurityPolicy/default``: the system's
    ///     roots, host names checked. Any other policy needs the curl transport; on URLSession its
    ///     transfers fail with ``NetworkingError/Kind/securityPolicyUnsupported``.
    ///   - http2: how the curl transport uses HTTP/2: streams per connection, connection sharing,
    ///     and the protocol of transfers a consumer can hold back. Default ``HTTP2Options/default``.
    ///     URLSession ignores it.
    public init(
        configuration: URLSessionConfiguration = SessionManager.defaultConfiguration(),
        maxConcurrentTransfers: Int? = nil,
        transport: Transport = .platformDefault,
        securityPolicy: SecurityPolicy = .default,
        http2: HTTP2Options = .default
    ) {
        self.init(
            configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers, transport: transport,
            securityPolicy: securityPolicy, stubs: nil, http2: http2
        )
    }

    /// Creates a manager (see the public initializer); with `stubs`, it runs on that
    /// ``StubTransport`` whatever `transport` says.
    init(
        configuration: URLSessionConfiguration, maxConcurrentTransfers: Int?, transport: Transport,
        securityPolicy: SecurityPolicy, stubs: StubTransport?, cookieJar: CookieJar? = nil, http2: HTTP2Options = .default,
        isShared: Bool = false
    ) {
        self.cookieJar = cookieJar
        self.isShared = isShared
        let executor = QueueExecutor(label: "AsyncNetworking.SessionManager")
        let delegateQueue = DelegateQueue(underlyingQueue: executor.queue)
        let delegate = SessionDelegate()
        self.executor = executor
        self.delegate = delegate
        self.delegateQueue = delegateQueue
        self.scheduler = TransferScheduler(limit: maxConcurrentTransfers)
        self.securityPolicies = SecurityPolicyTable(defaultPolicy: securityPolicy)
        self.configurationHeaders = ConfigurationHeaders(configuration)
        // URLSession would add credential-bearing configuration headers to every request it sends,
        // redirects to other origins included: they are merged per transfer instead. Its timeouts
        // are made ones FoundationNetworking can convert without trapping.
        self.underlyingSession = URLSession(
            configuration: CredentialScope.sessionConfiguration(Self.trapFreeTimeouts(configuration)),
            delegate: delegate, delegateQueue: delegateQueue
        )
        #if os(Linux) && canImport(CCurlShim)
        let relay = CurlEventRelay()
        switch transport {
        case _ where stubs != nil:
            engine = .stubs(stubs!)
        case .urlSession:
            engine = .urlSession
        case .curl, .curlOrURLSession:
            do throws(CurlLibraryError) {
                // The handler runs on the loop thread, which is the actor's executor: no hop.
                engine = .curl(try CurlSessionTransport(configuration: configuration, http2: http2, fallback: executor.queue) { [relay] events in
                    relay.manager?.assumeIsolated { $0.curlDidDeliver(events) }
                })
            } catch {
                engine = transport == .curl ? .curlUnavailable(error.message) : .urlSession
            }
        }
        if case .curl(let curl) = engine {
            actorExecutor = curl.loop.executor
        } else {
            actorExecutor = executor
            delegate.attach(self)
        }
        relay.manager = self
        #else
        engine = stubs.map(TransportEngine.stubs) ?? .urlSession
        actorExecutor = executor
        delegate.attach(self)
        #endif
        stubs?.attach(self)
    }

    /// Runs once the last reference is gone. URLSession retains its delegate until invalidated and
    /// the delegate holds the manager only weakly, so no callback reaches the manager after this:
    /// the session is cancelled, every session-event stream ends with ``SessionEvent/invalidated``,
    /// and releasing the registry ends every open transfer stream with
    /// ``NetworkingError/Kind/sessionInvalidated`` (a sink released before its transfer finished
    /// fails its stream), so no consumer waits forever.
    ///
    /// (Not an `isolated deinit`: Swift 6.3 reports a "circular reference" when optimising a client
    /// module of an actor whose deinit is isolated.)
    deinit {
        #if os(Linux) && canImport(CCurlShim)
        if case .curl(let curl) = engine { curl.loop.requestShutdown() }
        #endif
        delegateQueue.bypassing { underlyingSession.invalidateAndCancel() }
        observers.finishAll()
        activity.finishAll(nil)
    }

    /// The configuration AsyncNetworking uses by default, tuned for services calling services.
    ///
    /// Starts from `URLSessionConfiguration.default` and turns off what costs time per request and is
    /// rarely wanted server-side: `urlCache` (`nil`, with `.reloadIgnoringLocalCacheData`), cookie
    /// handling (`httpCookieStorage` `nil`, `httpShouldSetCookies` `false`) and `urlCredentialStorage`
    /// (`nil`; give credentials per host with ``setCredential(_:forHost:)`` or a challenge hook).
    /// On Linux this roughly doubles small-request throughput. Everything else keeps URLSession's
    /// defaults (a 60 s request timeout, `httpMaximumConnectionsPerHost` of 6).
    public static func defaultConfiguration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.default
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCredentialStorage = nil
        return configuration
    }

    // MARK: Inspection

    /// Transfers registered and not yet finished: running, waiting for a slot, or held.
    /// Zero once every transfer has ended, on every path (success, error, cancel, abandonment).
    public var activeTransferCount: Int { transfers.count }

    /// Transfers with a URLSession task running now.
    public var runningTransferCount: Int { transfersByAttempt.count }

    /// Transfers waiting for a slot under ``maxConcurrentTransfers``.
    public var waitingTransferCount: Int { scheduler.waitingCount }

    /// The most transfers that have run at once.
    public var peakRunningTransferCount: Int { scheduler.maxRunning }

    /// At most this many transfers run at once (`nil`: no limit). See ``setMaxConcurrentTransfers(_:)``.
    public var maxConcurrentTransfers: Int? { scheduler.limit }

    /// Whether the session still accepts new transfers.
    public var isActive: Bool { lifecycle == .active }

    // MARK: Configuration

    /// Changes the concurrency limit; waiting transfers start at once if it grew.
    public func setMaxConcurrentTransfers(_ limit: Int?) {
        for id in scheduler.setLimit(limit) { launchAdmitted(id) }
    }

    /// Replaces the hooks (redirect, challenge, cache, response). Applies to callbacks from now on.
    public func setHooks(_ hooks: SessionHooks) {
        self.hooks = hooks
    }

    /// Registers a credential answering HTTP Basic or Digest challenges from `host` (used when no
    /// challenge hook is set). Pass `nil` to remove it. It is the origin's: it answers a `401`
    /// from `host`, and never a proxy's `407` (see <doc:Proxies>).
    public func setCredential(_ credential: URLCredential?, forHost host: String) {
        credentials[host.lowercased()] = credential
    }

    /// Changes how many rejected credentials a transfer may try before the challenge is refused.
    public func setMaxAuthenticationAttempts(_ attempts: Int) {
        maxAuthenticationAttempts = max(0, attempts)
    }

    /// The manager's curl loop thread as a `TaskExecutor` (`nil` on URLSession).
    ///
    /// Code run with `withTaskExecutorPreference(manager.taskExecutor) { … }` runs on the thread
    /// that drives libcurl and the manager's actor, so a loop over a transfer's events or a batch
    /// gets its chunks and results with no thread hand-off. The code must not block (a blocked
    /// loop thread stalls every transfer of the manager) and should do little per chunk; heavy work
    /// belongs on the default executor. Once the manager is invalidated its loop stops and such
    /// code runs on a serial dispatch queue instead.
    public nonisolated var taskExecutor: (any TaskExecutor)? {
        #if os(Linux) && canImport(CCurlShim)
        if case .curl(let curl) = engine { return curl.loop.taskExecutor }
        #endif
        return nil
    }

    /// Runs `body` on the manager's executor from any thread, without creating a `Task`.
    package nonisolated func perform(_ body: @escaping @Sendable (isolated SessionManager) -> Void) {
        #if os(Linux) && canImport(CCurlShim)
        if case .curl(let curl) = engine {
            return curl.loop.executor.submit { self.assumeIsolated(body) }
        }
        #endif
        executor.queue.async { self.assumeIsolated(body) }
    }
}
