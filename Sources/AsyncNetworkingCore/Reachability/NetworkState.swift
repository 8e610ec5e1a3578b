/// The network as the monitor last saw it — links, addresses, default routes — and the status
/// rules. A pure value: the monitor feeds it netlink events and `getifaddrs` snapshots, tests feed
/// it byte fixtures.
///
/// The rules (AFNetworking's zero-address reachability, which Apple's Reachability sample calls
/// "whether the default route is available"):
/// - **Network**: reachable via the kind of the interface a default route (`0.0.0.0/0` or `::/0`,
///   main table, unicast) leaves through, when that interface is up and has a carrier. Among
///   several, the lowest metric wins, then IPv4, then the lowest interface index. With no usable
///   default route: `.reachable(via: .loopbackOnly)` when the only operational interfaces with an
///   address (link-local ones aside) are loopbacks, else `.unreachable` (an address on a LAN but
///   no way out: ask about a LAN host with `NetworkReachability(host:)`).
/// - **Host**: the kernel's route lookup for the host's address; reachable via the kind of the
///   interface it names when that interface is operational. The host being one of this machine's
///   own addresses (a `local` route through `lo`) gives `.loopbackOnly`.
struct NetworkState: Sendable, Equatable {
    struct Link: Sendable, Equatable {
        var info: LinkInfo
        var kind: ReachabilityStatus.Interface
    }

    private(set) var links: [Int32: Link] = [:]
    private(set) var addresses: Set<AddressInfo> = []
    private(set) var defaultRoutes: Set<RouteInfo> = []

    /// Applies one event. `classify` names a link's kind (the shell reads sysfs there).
    /// - Returns: whether the routes should be read again. The kernel removes IPv4 routes without
    ///   a notification when their link goes down or their address goes away, so after any link
    ///   or address change the monitor dumps the routes and calls ``replaceRoutes(_:)``.
    @discardableResult
    mutating func apply(_ event: NetlinkEvent, classify: (LinkInfo) -> ReachabilityStatus.Interface) -> Bool {
        switch event {
        case .link(let info):
            let kind = links[info.index].flatMap { $0.info.name == info.name && $0.info.hardwareType == info.hardwareType ? $0.kind : nil }
            links[info.index] = Link(info: info, kind: kind ?? classify(info))
            return true
        case .linkRemoved(let index):
            links[index] = nil
            addresses = addresses.filter { $0.index != index }
            defaultRoutes = defaultRoutes.filter { $0.outputInterface != index }
            return true
        case .address(let address):
            addresses.insert(address)
            return true
        case .addressRemoved(let address):
            addresses.remove(address)
            return true
        case .route(let route):
            if route.isDefault { defaultRoutes.insert(route) }
            return false
        case .routeRemoved(let route):
            defaultRoutes = defaultRoutes.filter { !$0.sameRoute(as: route) }
            return false
        case .done, .error, .overrun:
            return false
        }
    }

    /// Replaces the routes with a fresh dump's.
    mutating func replaceRoutes(_ routes: [RouteInfo]) {
        defaultRoutes = Set(routes.filter(\.isDefault))
    }

    /// Replaces links and addresses with a fresh snapshot's (after an overrun, or at start).
    mutating func replaceInterfaces(_ events: [NetlinkEvent], classify: (LinkInfo) -> ReachabilityStatus.Interface) {
        let previous = links
        links = [:]
        addresses = []
        for event in events {
            if case .link(let info) = event, let old = previous[info.index], old.info.name == info.name {
                links[info.index] = Link(info: info, kind: old.kind)
            } else {
                apply(event, classify: classify)
            }
        }
    }

    /// The status of the network as a whole (see the rules above).
    var status: ReachabilityStatus {
        let usable = defaultRoutes.compactMap { route -> (RouteInfo, Link)? in
            guard let index = route.outputInterface, let link = links[index], link.info.isOperational else { return nil }
            return (route, link)
        }
        let best = usable.min { a, b in
            (a.0.priority, a.0.family == Netlink.inet ? 0 : 1, a.1.info.index)
                < (b.0.priority, b.0.family == Netlink.inet ? 0 : 1, b.1.info.index)
        }
        if let best { return .reachable(via: best.1.kind) }
        let addressed = addresses.filter { address in
            !address.isLinkLocal && links[address.index]?.info.isOperational == true
        }
        if !addressed.isEmpty, addressed.allSatisfy({ links[$0.index]?.info.isLoopback == true }) {
            return .reachable(via: .loopbackOnly)
        }
        return .unreachable
    }

    /// The status of a host from the kernel's answers to route lookups for its addresses, in
    /// order (`nil`: the lookup failed, for instance with `ENETUNREACH`). The first reachable
    /// answer wins.
    func status(forLookups lookups: [RouteInfo?]) -> ReachabilityStatus {
        for lookup in lookups {
            guard let route = lookup,
                  route.type == Netlink.unicastRoute || route.type == Netlink.localRoute,
                  let index = route.outputInterface, let link = links[index], link.info.isOperational
            else { continue }
            if route.type == Netlink.localRoute || link.info.isLoopback { return .reachable(via: .loopbackOnly) }
            return .reachable(via: link.kind)
        }
        return .unreachable
    }
}

extension RouteInfo {
    /// Whether `other` names the same kernel route (a deletion carries the same keys; the type
    /// may differ).
    func sameRoute(as other: RouteInfo) -> Bool {
        family == other.family && destinationLength == other.destinationLength && table == other.table
            && outputInterface == other.outputInterface && gateway == other.gateway && priority == other.priority
    }
}
