#if canImport(Network) && !os(Linux)
import Dispatch
import Network

/// Apple platforms: `NWPathMonitor` for the network, a UDP `NWConnection`'s path for a host (it
/// evaluates the route to the host without sending anything). Written against Apple's
/// documentation; this project builds and tests on Linux only, so this file has never been
/// compiled here.
final class AppleReachabilityMonitor: ReachabilityMonitoring {
    private let pathMonitor: NWPathMonitor?
    private let connection: NWConnection?

    init(host: String?, broadcaster: ReachabilityBroadcaster) {
        let queue = DispatchQueue(label: "AsyncNetworking.Reachability")
        let first = DispatchSemaphore(value: 0)
        let update: @Sendable (NWPath) -> Void = { path in
            broadcaster.publish(Self.status(of: path))
            first.signal()
        }
        if let host {
            let connection = NWConnection(host: NWEndpoint.Host(HostAddresses.normalized(host)), port: 9, using: .udp)
            connection.pathUpdateHandler = update
            connection.start(queue: queue)
            self.connection = connection
            pathMonitor = nil
        } else {
            let monitor = NWPathMonitor()
            monitor.pathUpdateHandler = update
            monitor.start(queue: queue)
            pathMonitor = monitor
            connection = nil
        }
        // The first path arrives within milliseconds; the initializer promises a known status.
        _ = first.wait(timeout: .now() + .seconds(2))
    }

    func stop() {
        pathMonitor?.cancel()
        connection?.cancel()
    }

    static func status(of path: NWPath) -> ReachabilityStatus {
        guard path.status == .satisfied else { return .unreachable }
        if path.usesInterfaceType(.wifi) { return .reachable(via: .wifi) }
        if path.usesInterfaceType(.cellular) { return .reachable(via: .cellular) }
        if path.usesInterfaceType(.wiredEthernet) { return .reachable(via: .ethernet) }
        if path.usesInterfaceType(.loopback) { return .reachable(via: .loopbackOnly) }
        return .reachable(via: .other)
    }
}
#endif
