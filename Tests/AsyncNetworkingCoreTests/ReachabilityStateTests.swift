@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// The pure parts: the status rules (reducer), the interface classification, and the
/// `getifaddrs` conversion, on fixtures.
struct ReachabilityStateTests {
    typealias Fixture = ReachabilityParserTests
    static let up: UInt32 = 0x1 | 0x40 | 0x10000 // UP | RUNNING | LOWER_UP
    static let lo = LinkInfo(index: 1, name: "lo", hardwareType: 772, flags: up | 0x8)
    static let eth0 = LinkInfo(index: 2, name: "eth0", hardwareType: 1, flags: up | 0x2)

    static func kinds(_ link: LinkInfo) -> ReachabilityStatus.Interface {
        InterfaceClassifier.classify(InterfaceFacts(name: link.name, hardwareType: link.hardwareType, flags: link.flags))
    }

    static func state(_ events: [NetlinkEvent]) -> NetworkState {
        var state = NetworkState()
        for event in events { state.apply(event, classify: kinds) }
        return state
    }

    /// The captured namespace: lo and eth0 up with addresses, and the kernel's default route.
    static var captured: [NetlinkEvent] {
        [.link(lo), .link(eth0)] + NetlinkParser.parse(Fixture.addressLoopback + Fixture.addressEth0 + Fixture.defaultRoute + Fixture.subnetRoute)
    }

    @Test func theStatusRules() {
        #expect(Self.state([]).status == .unreachable)
        #expect(Self.state(Self.captured).status == .reachable(via: .ethernet))
        // Without the default route: eth0 has an address but no way out.
        let withoutDefault = Self.captured + NetlinkParser.parse(Fixture.defaultRoute).map {
            if case .route(let route) = $0 { NetlinkEvent.routeRemoved(route) } else { $0 }
        }
        #expect(Self.state(withoutDefault).status == .unreachable)
        // eth0 loses its carrier: only lo is usable.
        var carrierLost = Self.eth0
        carrierLost.flags &= ~0x40
        #expect(Self.state(Self.captured + [.link(carrierLost)]).status == .reachable(via: .loopbackOnly))
        // lo down too: nothing.
        var loDown = Self.lo
        loDown.flags = 0x8
        #expect(Self.state(Self.captured + [.link(carrierLost), .link(loDown)]).status == .unreachable)
        // eth0 removed: its addresses and routes go with it.
        let removed = Self.state(Self.captured + [.linkRemoved(index: 2)])
        #expect(removed.status == .reachable(via: .loopbackOnly) && removed.defaultRoutes.isEmpty)
    }

    @Test func linkLocalAddressesDoNotCount() {
        let linkLocal6 = AddressInfo(index: 2, family: 10, prefixLength: 64, address: [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1])
        let linkLocal4 = AddressInfo(index: 2, family: 2, prefixLength: 16, address: [169, 254, 1, 1])
        #expect(linkLocal6.isLinkLocal && linkLocal4.isLinkLocal)
        let loAddress = AddressInfo(index: 1, family: 2, prefixLength: 8, address: [127, 0, 0, 1])
        let state = Self.state([.link(Self.lo), .link(Self.eth0), .address(loAddress), .address(linkLocal6), .address(linkLocal4)])
        #expect(state.status == .reachable(via: .loopbackOnly))
    }

    @Test func theBestDefaultRouteNamesTheInterface() {
        let wlan = LinkInfo(index: 3, name: "wlan0", hardwareType: 1, flags: Self.up)
        func route(_ index: Int32, metric: UInt32, family: UInt8 = 2) -> NetlinkEvent {
            .route(RouteInfo(family: family, destinationLength: 0, table: 254, type: 1, outputInterface: index, gateway: nil, priority: metric))
        }
        #expect(Self.state([.link(Self.eth0), .link(wlan), route(2, metric: 600), route(3, metric: 100)]).status == .reachable(via: .wifi))
        #expect(Self.state([.link(Self.eth0), .link(wlan), route(2, metric: 100), route(3, metric: 600)]).status == .reachable(via: .ethernet))
        // Equal metrics: IPv4 first.
        #expect(Self.state([.link(Self.eth0), .link(wlan), route(2, metric: 0, family: 10), route(3, metric: 0)]).status == .reachable(via: .wifi))
        // A route through a link that is down does not count; other tables and types neither.
        var wlanDown = wlan
        wlanDown.flags = 0x1
        #expect(Self.state([.link(Self.eth0), .link(wlanDown), route(3, metric: 0)]).status == .unreachable)
        let otherTable = NetlinkEvent.route(RouteInfo(family: 2, destinationLength: 0, table: 100, type: 1, outputInterface: 2, gateway: nil, priority: 0))
        let blackhole = NetlinkEvent.route(RouteInfo(family: 2, destinationLength: 0, table: 254, type: 6, outputInterface: nil, gateway: nil, priority: 0))
        #expect(Self.state([.link(Self.eth0), otherTable, blackhole]).status == .unreachable)
    }

    @Test func routeDumpsReplaceRoutesAndLinkChangesAskForOne() {
        var state = Self.state(Self.captured)
        let linkAsks = state.apply(.link(Self.eth0), classify: Self.kinds)
        let routeAsks = state.apply(NetlinkParser.parse(Fixture.subnetRoute)[0], classify: Self.kinds)
        #expect(linkAsks && !routeAsks)
        state.replaceRoutes([])
        #expect(state.status == .unreachable)
    }

    @Test func hostStatusFromLookups() {
        let state = Self.state(Self.captured)
        let lookups = NetlinkParser.parse(Fixture.lookupThroughGateway + Fixture.lookupLocal).map { event -> RouteInfo? in
            if case .route(let route) = event { route } else { nil }
        }
        #expect(state.status(forLookups: [lookups[0]]) == .reachable(via: .ethernet))
        #expect(state.status(forLookups: [lookups[1]]) == .reachable(via: .loopbackOnly))
        #expect(state.status(forLookups: [nil]) == .unreachable)
        #expect(state.status(forLookups: []) == .unreachable)
        #expect(state.status(forLookups: [nil, lookups[0]]) == .reachable(via: .ethernet)) // the first usable wins
        var carrierLost = Self.eth0
        carrierLost.flags &= ~0x40
        #expect(Self.state(Self.captured + [.link(carrierLost)]).status(forLookups: [lookups[0]]) == .unreachable)
    }

    @Test(arguments: [
        (InterfaceFacts(name: "lo", hardwareType: 772, flags: 0x49), ReachabilityStatus.Interface.loopbackOnly),
        (InterfaceFacts(name: "eth0", hardwareType: 1, flags: 0x1043, sysfsRead: true), .ethernet),
        (InterfaceFacts(name: "enp3s0", hardwareType: 1, flags: 0x1043), .ethernet),
        (InterfaceFacts(name: "wlp2s0", hardwareType: 1, flags: 0x1043, isWireless: true, sysfsRead: true), .wifi),
        (InterfaceFacts(name: "mywifi", hardwareType: 1, flags: 0x1043, deviceType: "wlan", sysfsRead: true), .wifi),
        (InterfaceFacts(name: "wlan0", hardwareType: 1, flags: 0x1043), .wifi),
        // sysfs was read and says not wireless: the name does not override it.
        (InterfaceFacts(name: "wlan0", hardwareType: 1, flags: 0x1043, sysfsRead: true), .ethernet),
        (InterfaceFacts(name: "wwan0", hardwareType: 0xFFFE, flags: 0x1091), .cellular),
        (InterfaceFacts(name: "rmnet_data0", hardwareType: 519, flags: 0x1091), .cellular),
        (InterfaceFacts(name: "modem", hardwareType: 0xFFFE, flags: 0x1091, deviceType: "wwan", sysfsRead: true), .cellular),
        (InterfaceFacts(name: "tun0", hardwareType: 0xFFFE, flags: 0x1091, sysfsRead: true), .other),
        (InterfaceFacts(name: "ib0", hardwareType: 32, flags: 0x1043, sysfsRead: true), .other),
    ])
    func classification(facts: InterfaceFacts, kind: ReachabilityStatus.Interface) {
        #expect(InterfaceClassifier.classify(facts) == kind)
    }

    @Test func ueventDeviceType() {
        #expect(InterfaceClassifier.deviceType(fromUevent: "DEVTYPE=wlan\nINTERFACE=wlp2s0\nIFINDEX=3\n") == "wlan")
        #expect(InterfaceClassifier.deviceType(fromUevent: "INTERFACE=eth0\nIFINDEX=2\n") == nil)
    }

    @Test func getifaddrsEntriesBecomeEvents() {
        // sockaddr_ll: family 17, protocol, ifindex 2, hatype 1; sockaddr_in 10.66.0.1 with /24;
        // sockaddr_in6 fe80::1 with /64.
        let packet: [UInt8] = [17, 0, 0, 0, 2, 0, 0, 0, 1, 0] + [UInt8](repeating: 0, count: 10)
        let inet: [UInt8] = [2, 0, 0, 0, 10, 66, 0, 1] + [UInt8](repeating: 0, count: 8)
        let mask: [UInt8] = [2, 0, 0, 0, 255, 255, 255, 0] + [UInt8](repeating: 0, count: 8)
        let inet6: [UInt8] = [10, 0, 0, 0, 0, 0, 0, 0, 0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1, 0, 0, 0, 0]
        let mask6: [UInt8] = [10, 0] + [UInt8](repeating: 0, count: 6) + [UInt8](repeating: 0xFF, count: 8) + [UInt8](repeating: 0, count: 12)
        let entries = [
            InterfaceEntry(name: "eth0", flags: 0x11043, address: inet, netmask: mask),
            InterfaceEntry(name: "eth0", flags: 0x11043, address: packet, netmask: []),
            InterfaceEntry(name: "eth0", flags: 0x11043, address: inet6, netmask: mask6),
            InterfaceEntry(name: "ghost", flags: 0, address: inet, netmask: mask), // no AF_PACKET entry
        ]
        #expect(InterfaceSnapshot.events(from: entries) == [
            .link(LinkInfo(index: 2, name: "eth0", hardwareType: 1, flags: 0x11043)),
            .address(AddressInfo(index: 2, family: 2, prefixLength: 24, address: [10, 66, 0, 1])),
            .address(AddressInfo(index: 2, family: 10, prefixLength: 64, address: [0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1])),
        ])
    }
}
