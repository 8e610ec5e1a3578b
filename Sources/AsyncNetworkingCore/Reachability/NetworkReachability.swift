/// Whether the network, or one host, can be reached, and every change: AFNetworking's
/// `AFNetworkReachabilityManager` as a `Sendable` value with an `AsyncStream`.
///
/// ```swift
/// let reachability = try NetworkReachability()            // the network as a whole
/// print(reachability.status)                              // known at once: no "unknown"
/// for await status in reachability.statuses {             // the current status, then each change
///     if status.isReachable { ... }
/// }
/// let api = try NetworkReachability(host: "api.example.com")   // one host
/// ```
///
/// Monitoring starts in the initializer, which returns once the current status is known, and
/// runs until ``stopMonitoring()`` or until the last reference goes. On Linux it comes from the
/// kernel, without polling: `getifaddrs` and a route dump for the current state, an rtnetlink
/// socket (link, IPv4/IPv6 address and route groups) for changes, and the kernel's route lookup
/// (`RTM_GETROUTE`) for a host. On Apple platforms it comes from `NWPathMonitor` (the network)
/// or a UDP `NWConnection`'s path (a host). See <doc:Reachability> for the exact rules.
///
/// Reachability says a route exists, not that a server will answer: keep handling transport
/// errors. To make a ``SessionManager``'s transfers wait for the network instead of failing, see
/// ``SessionManager/setWaitsForConnectivity(_:reachability:)``.
public final class NetworkReachability: Sendable {
    /// The host this instance watches, or `nil` for the network as a whole.
    public let host: String?
    let broadcaster: ReachabilityBroadcaster
    private let monitor: (any ReachabilityMonitoring)?

    /// Watches the network as a whole (AFNetworking's `+manager`): reachable when a default route
    /// leaves through an interface that is up.
    ///
    /// Blocks briefly while the current state is read.
    /// - Throws: ``NetworkingError/Kind/reachabilityUnavailable`` when the platform's monitor
    ///   cannot start (on Linux: no rtnetlink socket, for instance under a seccomp filter).
    public convenience init() throws(NetworkingError) {
        try self.init(host: nil, namespacePath: nil)
    }

    /// Watches one host (AFNetworking's `+managerForDomain:` and `+managerForAddress:`): a name,
    /// an IPv4 literal or an IPv6 literal (with or without brackets).
    ///
    /// Reachable when the kernel's route to one of the host's addresses leaves through an
    /// interface that is up. A name is resolved on the monitor's thread before this returns, so
    /// the initializer waits for DNS (or `/etc/hosts`); a name that does not resolve is
    /// `unreachable` and is resolved again at the next network change.
    /// - Throws: ``NetworkingError/Kind/invalidURL`` for an empty host;
    ///   ``NetworkingError/Kind/reachabilityUnavailable`` as ``init()``.
    public convenience init(host: String) throws(NetworkingError) {
        guard !HostAddresses.normalized(host).isEmpty else {
            throw NetworkingError(.invalidURL, "a reachability host must not be empty")
        }
        try self.init(host: host, namespacePath: nil)
    }

    /// The same as ``init(host:)``, named after AFNetworking's `managerForDomain:`.
    public static func forHost(_ host: String) throws(NetworkingError) -> NetworkReachability {
        try NetworkReachability(host: host)
    }

    /// One instance for the network as a whole, shared by the process and never stopped
    /// (AFNetworking's `+sharedManager`). Created on first use.
    /// - Throws: ``NetworkingError/Kind/reachabilityUnavailable`` if it could not start (and
    ///   again on every later use).
    public static var shared: NetworkReachability {
        get throws(NetworkingError) { try sharedInstance.get() }
    }

    private static let sharedInstance = Result { () throws(NetworkingError) in try NetworkReachability() }

    /// Watches the network or `host` from inside the network namespace at `namespacePath`
    /// (`/var/run/netns/<name>`; Linux only), or the process's own with `nil`.
    init(host: String?, namespacePath: String?) throws(NetworkingError) {
        self.host = host
        let broadcaster = ReachabilityBroadcaster(status: .unreachable)
        self.broadcaster = broadcaster
        #if os(Linux)
        monitor = try LinuxReachabilityMonitor(host: host, namespacePath: namespacePath, broadcaster: broadcaster)
        #elseif canImport(Network)
        monitor = AppleReachabilityMonitor(host: host, broadcaster: broadcaster)
        #else
        throw NetworkingError(.reachabilityUnavailable, "no reachability monitor on this platform")
        #endif
    }

    /// An instance without a monitor, whose status changes only through ``publish(_:)``: for
    /// tests of code that consumes statuses.
    init(manualStatus status: ReachabilityStatus, host: String? = nil) {
        self.host = host
        broadcaster = ReachabilityBroadcaster(status: status)
        monitor = nil
    }

    deinit {
        monitor?.stop()
        broadcaster.finish()
    }

    /// Publishes a status (manual instances; duplicates are coalesced).
    func publish(_ status: ReachabilityStatus) {
        broadcaster.publish(status)
    }

    /// The current status (AFNetworking's `networkReachabilityStatus`). Never suspends.
    public var status: ReachabilityStatus { broadcaster.status }

    /// The current status, then every change, each exactly once (a status equal to the previous
    /// one is never repeated). Each access returns a new, independent stream; it finishes after
    /// ``stopMonitoring()`` or when this instance is released. Keeps the newest 64 statuses for a
    /// reader that falls behind. Replaces `setReachabilityStatusChangeBlock:` and
    /// `AFNetworkingReachabilityDidChangeNotification`.
    public var statuses: AsyncStream<ReachabilityStatus> { statuses(bufferingNewest: 64) }

    /// ``statuses``, keeping at most `limit` statuses (at least 1) for a slow reader; the oldest
    /// are dropped first.
    public func statuses(bufferingNewest limit: Int) -> AsyncStream<ReachabilityStatus> {
        broadcaster.stream(bufferingNewest: limit)
    }

    /// Suspends until the status is reachable (at once if it is).
    ///
    /// - Throws: ``NetworkingError/Kind/cancelled`` if the calling task is cancelled first;
    ///   ``NetworkingError/Kind/reachabilityUnavailable`` if monitoring stops first.
    public func waitUntilReachable() async throws(NetworkingError) {
        for await status in statuses(bufferingNewest: 1) where status.isReachable { return }
        if Task.isCancelled { throw NetworkingError(.cancelled, "cancelled while waiting for reachability") }
        throw NetworkingError(.reachabilityUnavailable, "reachability monitoring stopped while waiting")
    }

    /// Whether ``status`` is reachable, by any interface (the loopback included for
    /// ``ReachabilityStatus/Interface/loopbackOnly``). AFNetworking's `reachable`.
    public var isReachable: Bool { status.isReachable }

    /// Whether ``status`` is reachable via Wi-Fi. AFNetworking's `reachableViaWiFi`.
    public var isReachableViaWiFi: Bool { status == .reachable(via: .wifi) }

    /// Whether ``status`` is reachable via a cellular modem. AFNetworking's `reachableViaWWAN`.
    public var isReachableViaWWAN: Bool { status == .reachable(via: .cellular) }

    /// Whether ``status`` is reachable via wired Ethernet.
    public var isReachableViaEthernet: Bool { status == .reachable(via: .ethernet) }

    /// Stops monitoring (AFNetworking's `stopMonitoring`): every ``statuses`` stream finishes and
    /// ``status`` keeps its last value. Idempotent; there is no restart (create a new instance).
    public func stopMonitoring() {
        monitor?.stop()
        broadcaster.finish()
    }

    /// Whether monitoring has stopped.
    public var isMonitoring: Bool { !broadcaster.isFinished }
}

/// A platform monitor feeding a ``ReachabilityBroadcaster``.
protocol ReachabilityMonitoring: Sendable {
    func stop()
}

#if os(Linux)
extension LinuxReachabilityMonitor: ReachabilityMonitoring {}
#endif
