@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// rtnetlink parsing on byte fixtures. The address, route, lookup and error messages were
/// captured from the kernel (6.18, x86_64) in a namespace with `lo` up and `eth0` (a veth,
/// index 2) at 10.66.0.1/24 with `default via 10.66.0.2 metric 100`; the link and multipath
/// messages are written by hand from the header layouts (see `NetlinkLayout.swift`).
struct ReachabilityParserTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    static let addressLoopback = bytes("4c0000001400020007000000ae5d0000020880fe01000000080001007f000001080002007f000001070003006c6f0000080008008000000014000600fffffffffffffffffc0c1100fc0c1100")
    static let addressEth0 = bytes("500000001400020007000000ae5d00000218800002000000080001000a420001080002000a420001090003006574683000000000080008008000000014000600ffffffffffffffff000d1100000d1100")
    static let defaultRoute = bytes("3c0000001800020007000000ae5d000002000000fe0300010000000008000f00fe0000000800060064000000080005000a4200020800040002000000")
    static let subnetRoute = bytes("3c0000001800020007000000ae5d000002180000fe02fd010000000008000f00fe000000080001000a420000080007000a4200010800040002000000")
    static let localTableRoute = bytes("3c0000001800020007000000ae5d000002200000ff02fe020000000008000f00ff000000080001000a420001080007000a4200010800040002000000")
    static let lookupThroughGateway = bytes("700000001800000009000000ae5d000002200000fe0000010002000008000f00fe00000008000100c00002010800040002000000080007000a420001080005000a420002080019000000000024000c000200000000000000000000000000000000000000000000000000000000000000")
    static let lookupLocal = bytes("680000001800000009000000ae5d000002200000fe0000020002008008000f00fe000000080001000a4200010800040001000000080007000a420001080019000000000024000c000100000000000000000000000000000000000000000000000000000000000000")
    static let lookupUnreachable = bytes("38000000020000000b000000de5d00009bffffff240000001a0001000b0000000000000002200000000000000000000008000100cb007105")
    /// RTM_NEWLINK, flags UP|BROADCAST|RUNNING|MULTICAST|LOWER_UP (0x11043), ARPHRD_ETHER, index 3,
    /// IFLA_IFNAME "wlan0" (rta_len 10, padded to 12).
    static let linkWlan0 = bytes("2c000000100000000000000000000000" + "00000100030000004310010000000000" + "0a000300776c616e30000000")
    /// The same link removed (RTM_DELLINK).
    static let linkWlan0Removed = bytes("2c000000110000000000000000000000" + "00000100030000004310010000000000" + "0a000300776c616e30000000")

    @Test func addressesFromTheKernel() {
        #expect(NetlinkParser.parse(Self.addressLoopback) == [.address(AddressInfo(index: 1, family: 2, prefixLength: 8, address: [127, 0, 0, 1]))])
        #expect(NetlinkParser.parse(Self.addressEth0) == [.address(AddressInfo(index: 2, family: 2, prefixLength: 24, address: [10, 66, 0, 1]))])
    }

    @Test func routesFromTheKernel() {
        let events = NetlinkParser.parse(Self.defaultRoute + Self.subnetRoute + Self.localTableRoute)
        #expect(events == [
            .route(RouteInfo(family: 2, destinationLength: 0, table: 254, type: 1, outputInterface: 2, gateway: [10, 66, 0, 2], priority: 100)),
            .route(RouteInfo(family: 2, destinationLength: 24, table: 254, type: 1, outputInterface: 2, gateway: nil, priority: 0)),
            .route(RouteInfo(family: 2, destinationLength: 32, table: 255, type: 2, outputInterface: 2, gateway: nil, priority: 0)),
        ])
        let routes = events.compactMap { if case .route(let route) = $0 { route } else { nil } }
        #expect(routes.map(\.isDefault) == [true, false, false])
    }

    @Test func routeLookupAnswers() {
        #expect(NetlinkParser.parse(Self.lookupThroughGateway).first
                == .route(RouteInfo(family: 2, destinationLength: 32, table: 254, type: 1, outputInterface: 2, gateway: [10, 66, 0, 2], priority: 0)))
        guard case .route(let local)? = NetlinkParser.parse(Self.lookupLocal).first else {
            Issue.record("no route in the local lookup")
            return
        }
        #expect(local.type == Netlink.localRoute && local.outputInterface == 1)
        #expect(NetlinkParser.parse(Self.lookupUnreachable) == [.error(sequence: 11, code: -101)]) // -ENETUNREACH
    }

    @Test func linksAddedAndRemoved() {
        let link = LinkInfo(index: 3, name: "wlan0", hardwareType: 1, flags: 0x11043)
        #expect(NetlinkParser.parse(Self.linkWlan0) == [.link(link)])
        #expect(link.isOperational && !link.isLoopback)
        #expect(NetlinkParser.parse(Self.linkWlan0Removed) == [.linkRemoved(index: 3)])
    }

    @Test func severalMessagesInOneDatagramAndTheEndOfADump() {
        let done = NetlinkRequest.message(type: Netlink.done, flags: Netlink.multi, sequence: 7, body: [0, 0, 0, 0])
        let events = NetlinkParser.parse(Self.addressEth0 + Self.defaultRoute + done)
        #expect(events.count == 3)
        #expect(events.last == .done(sequence: 7))
    }

    @Test func multipathRoutesUseTheFirstNextHop() {
        // rtmsg: AF_INET, dst_len 0, table 254, proto static, scope universe, RTN_UNICAST;
        // RTA_MULTIPATH (len 4 + 2 * 16) with rtnexthop{len 16, ifindex 5, RTA_GATEWAY} and ifindex 6.
        let nexthop: (UInt8) -> String = { index in "10000000" + String(format: "%02x000000", index) + "08000500c0a80001" }
        let body = "02000000fe040001" + "00000000" + "24000900" + nexthop(5) + nexthop(6)
        let message = NetlinkRequest.message(type: Netlink.newRoute, flags: 0, sequence: 0, body: Self.bytes(body))
        guard case .route(let route)? = NetlinkParser.parse(message).first else {
            Issue.record("no route")
            return
        }
        #expect(route.outputInterface == 5 && route.isDefault)
    }

    @Test(arguments: [0, 3, 15, 16, 20, 40])
    func truncatedInputNeverCrashes(length: Int) {
        let message = Array((Self.addressEth0 + Self.defaultRoute).prefix(length))
        #expect(NetlinkParser.parse(message).count <= 1)
    }

    @Test func aLengthPastTheEndStopsTheParse() {
        var message = Self.defaultRoute
        message[0] = 0xFF // nlmsg_len 255 > 60 bytes present
        #expect(NetlinkParser.parse(message).isEmpty)
        var attribute = Self.addressEth0
        attribute[24] = 0xFF // the first rtattr claims 255 bytes: no attribute is trusted
        #expect(NetlinkParser.parse(attribute).isEmpty) // no IFA_LOCAL/IFA_ADDRESS: not an address
    }

    @Test func requestsAreEncodedAsTheKernelExpects() {
        let lookup = NetlinkRequest.routeLookup(to: [203, 0, 113, 5], sequence: 11)
        // The same bytes the capture sent (nlmsg_pid 0, rtm_dst_len 32, RTA_DST).
        #expect(lookup == Self.bytes("24000000" + "1a000100" + "0b000000" + "00000000" + "022000000000000000000000" + "08000100cb007105"))
        let lookup6 = NetlinkRequest.routeLookup(to: [UInt8](repeating: 0, count: 15) + [1], sequence: 1)
        #expect(lookup6.count == 16 + 12 + 20 && lookup6[16] == Netlink.inet6 && lookup6[17] == 128)
        let dump = NetlinkRequest.routeDump(sequence: 2)
        #expect(dump.count == 28 && dump.u16(at: 4) == Netlink.getRoute && dump.u16(at: 6) == 0x301)
    }
}
