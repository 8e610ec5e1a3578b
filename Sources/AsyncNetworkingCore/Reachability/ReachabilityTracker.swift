#if os(Linux)
import Foundation

/// The monitor thread's worker: owns the two netlink sockets and the ``NetworkState``, turns
/// kernel notifications into statuses and publishes them. Used by that thread only.
///
/// Two sockets, both opened in the thread's network namespace: `events`, subscribed to the link,
/// address and route groups (and opened *before* the first snapshot, so no change falls between
/// snapshot and notifications); `queries`, unsubscribed, for route dumps and route lookups, so
/// their answers never interleave with notifications.
final class ReachabilityTracker {
    private let events: NetlinkSocket
    private let queries: NetlinkSocket
    private let readsSysfs: Bool
    private let host: String?
    private var hostAddresses: [[UInt8]] = []
    private var state = NetworkState()
    private let broadcaster: ReachabilityBroadcaster

    init(host: String?, readsSysfs: Bool, broadcaster: ReachabilityBroadcaster) throws(NetlinkSocket.Failure) {
        events = try NetlinkSocket(groups: Netlink.groups)
        queries = try NetlinkSocket()
        self.host = host
        self.readsSysfs = readsSysfs
        self.broadcaster = broadcaster
        try resynchronize()
        broadcaster.publish(currentStatus())
    }

    /// Reads everything again: interfaces with `getifaddrs`, routes with a dump.
    private func resynchronize() throws(NetlinkSocket.Failure) {
        guard let entries = InterfaceSnapshot.read() else { throw NetlinkSocket.Failure(call: "getifaddrs", code: errno) }
        state.replaceInterfaces(InterfaceSnapshot.events(from: entries), classify: classify)
        try readRoutes()
    }

    private func readRoutes() throws(NetlinkSocket.Failure) {
        let answer = try queries.request(dump: true) { NetlinkRequest.routeDump(sequence: $0) }
        state.replaceRoutes(answer.compactMap { if case .route(let route) = $0 { route } else { nil } })
    }

    /// The network's status, or the host's from a route lookup per address (RTM_GETROUTE with
    /// RTA_DST: the kernel's own answer, policy routing included, without a socket per host).
    private func currentStatus() -> ReachabilityStatus {
        guard let host else { return state.status }
        if hostAddresses.isEmpty { hostAddresses = HostAddresses.resolve(host) }
        let lookups = hostAddresses.map { address -> RouteInfo? in
            let answer = try? queries.request(dump: false) { NetlinkRequest.routeLookup(to: address, sequence: $0) }
            guard case .route(let route)? = answer?.first else { return nil }
            return route
        }
        return state.status(forLookups: lookups)
    }

    /// Waits for notifications until `wake` (a pipe's read end) is readable or closed. Each wake-up
    /// drains every queued datagram before computing the status once, so a burst (a link going
    /// down takes its addresses and routes with it) publishes one status.
    func run(until wake: Int32) {
        while true {
            var descriptors = [
                pollfd(fd: events.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[1].revents != 0 { return }
            if descriptors[0].revents & Int16(POLLERR | POLLNVAL) != 0, descriptors[0].revents & Int16(POLLIN) == 0 { return }
            drain()
            broadcaster.publish(currentStatus())
        }
    }

    private func drain() {
        var routesStale = false
        var resync = false
        while true {
            let bytes: [UInt8]?
            do throws(NetlinkSocket.Failure) {
                bytes = try events.receive(wait: false)
            } catch {
                // ENOBUFS: notifications were dropped, so read the whole state again. Anything
                // else ends the drain; `poll` then reports the socket's error and the loop stops.
                guard error.code == ENOBUFS else { break }
                resync = true
                continue
            }
            guard let bytes else { break }
            for event in NetlinkParser.parse(bytes) {
                if case .overrun = event { resync = true }
                if state.apply(event, classify: classify) { routesStale = true }
            }
        }
        if resync {
            try? resynchronize()
        } else if routesStale {
            try? readRoutes()
        }
    }

    /// Classifies a link, reading sysfs only in the process's own namespace.
    private func classify(_ link: LinkInfo) -> ReachabilityStatus.Interface {
        var facts = InterfaceFacts(name: link.name, hardwareType: link.hardwareType, flags: link.flags)
        let directory = "/sys/class/net/\(link.name)"
        if readsSysfs, !link.name.isEmpty, !link.name.contains("/"), FileManager.default.fileExists(atPath: directory) {
            facts.sysfsRead = true
            facts.isWireless = FileManager.default.fileExists(atPath: directory + "/wireless")
                || FileManager.default.fileExists(atPath: directory + "/phy80211")
            if let uevent = try? String(contentsOfFile: directory + "/uevent", encoding: .utf8) {
                facts.deviceType = InterfaceClassifier.deviceType(fromUevent: uevent)
            }
        }
        return InterfaceClassifier.classify(facts)
    }
}
#endif
