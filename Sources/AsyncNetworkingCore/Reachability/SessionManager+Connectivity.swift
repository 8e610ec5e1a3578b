/// A manager's transfers waiting for the network: AFHTTPSessionManager's `reachabilityManager`,
/// and URLSession's `waitsForConnectivity` done by the manager on both transports.
struct ConnectivityGate {
    let reachability: NetworkReachability
    let observer: Int
    /// Transfers parked while unreachable, in arrival order (some may have finished since).
    var parked: [TransferID] = []
}

extension SessionManager {
    /// Makes transfers wait for the network instead of failing at once while it is unreachable
    /// (URLSession's `waitsForConnectivity`, on both transports).
    ///
    /// When on, a transfer about to start — a new one, or one resumed after ``TransferHandle/suspend()``
    /// — while `reachability`'s status is ``ReachabilityStatus/unreachable`` does not start: it
    /// waits, without taking a slot under ``maxConcurrentTransfers``, and starts as soon as the
    /// status becomes reachable (any interface, ``ReachabilityStatus/Interface/loopbackOnly``
    /// included), in the order the transfers arrived. A waiting transfer follows its caller: the
    /// calling `Task`'s cancellation, ``TransferHandle/cancel()``, abandoning its stream, or
    /// invalidating the manager ends it with ``NetworkingError/Kind/cancelled`` (or
    /// ``NetworkingError/Kind/sessionInvalidated``), nothing having been sent. There is no
    /// timeout of its own: wrap the call in one if you want it.
    ///
    /// The check happens when a transfer starts: one already running when the network goes away
    /// fails with its transport error as before (the manager does not retry what may have been
    /// sent).
    ///
    /// - Parameters:
    ///   - waits: `true` to wait; `false` (the default state) to start transfers at once, which
    ///     also starts every waiting transfer now.
    ///   - reachability: what to wait for. Default `nil`: ``NetworkReachability/shared`` (the
    ///     network as a whole). Give a ``NetworkReachability/init(host:)`` to wait for one host.
    ///     If it stops monitoring, waiting transfers start and no new ones wait.
    /// - Throws: ``NetworkingError/Kind/reachabilityUnavailable`` when `reachability` is `nil`
    ///   and the shared instance cannot start.
    public func setWaitsForConnectivity(_ waits: Bool, reachability: NetworkReachability? = nil) throws(NetworkingError) {
        var monitor: NetworkReachability?
        if waits {
            if let reachability { monitor = reachability } else { monitor = try NetworkReachability.shared }
        }
        let released = connectivityGate?.parked ?? []
        if let gate = connectivityGate { gate.reachability.broadcaster.removeObserver(gate.observer) }
        connectivityGate = nil
        if let monitor {
            let observer = monitor.broadcaster.addObserver { [weak self] status in
                guard let self else { return false }
                self.perform { $0.connectivityDidChange() }
                return true
            }
            connectivityGate = ConnectivityGate(reachability: monitor, observer: observer)
        }
        startParked(released)
    }

    /// Whether transfers wait for the network (see ``setWaitsForConnectivity(_:reachability:)``).
    public var waitsForConnectivity: Bool { connectivityGate != nil }

    /// The reachability transfers wait for, when ``waitsForConnectivity`` is on.
    public var reachability: NetworkReachability? { connectivityGate?.reachability }

    /// Transfers waiting for the network to become reachable.
    public var transfersWaitingForConnectivity: Int {
        connectivityGate?.parked.count { transfers[$0]?.phase == .waiting } ?? 0
    }

    /// Parks `state` when the manager waits for connectivity and the network is unreachable.
    /// - Returns: whether it was parked (then it must not be scheduled now).
    func parkUntilReachable(_ state: TransferState) -> Bool {
        guard let gate = connectivityGate, gate.reachability.isMonitoring, !gate.reachability.status.isReachable else {
            return false
        }
        connectivityGate?.parked.append(state.id)
        return true
    }

    /// The status changed (or monitoring stopped): start the parked transfers if they may go.
    /// The status is read here, on the actor, after the monitor stored it: a transfer parked
    /// before this runs is always seen.
    func connectivityDidChange() {
        guard let gate = connectivityGate, gate.reachability.status.isReachable || !gate.reachability.isMonitoring else { return }
        connectivityGate?.parked = []
        startParked(gate.parked)
    }

    private func startParked(_ ids: [TransferID]) {
        for id in ids {
            guard let state = transfers[id], state.phase == .waiting, !state.isHeld else { continue }
            schedule(state)
        }
    }
}
