/// A link (network interface) as rtnetlink or `getifaddrs` describes it.
struct LinkInfo: Sendable, Hashable {
    var index: Int32
    var name: String
    /// `ARPHRD_*`.
    var hardwareType: UInt16
    /// `IFF_*`.
    var flags: UInt32

    /// Administratively up and with a carrier (`IFF_UP` and `IFF_RUNNING`): traffic can flow.
    var isOperational: Bool {
        flags & Netlink.flagUp != 0 && flags & Netlink.flagRunning != 0
    }

    var isLoopback: Bool {
        flags & Netlink.flagLoopback != 0 || hardwareType == Netlink.hardwareLoopback
    }
}

/// An interface address.
struct AddressInfo: Sendable, Hashable {
    var index: Int32
    /// `AF_INET` (2) or `AF_INET6` (10).
    var family: UInt8
    var prefixLength: UInt8
    /// 4 or 16 bytes, network order.
    var address: [UInt8]

    /// `169.254.0.0/16` or `fe80::/10`: usable on the link only, so it does not count as an
    /// address for reachability (IPv6 gives every link one as soon as it is up).
    var isLinkLocal: Bool {
        if family == Netlink.inet { return address.count == 4 && address[0] == 169 && address[1] == 254 }
        return address.count == 16 && address[0] == 0xFE && address[1] & 0xC0 == 0x80
    }
}

/// A route: the fields that decide reachability.
struct RouteInfo: Sendable, Hashable {
    var family: UInt8
    var destinationLength: UInt8
    /// `RTA_TABLE` when present, else `rtm_table`.
    var table: UInt32
    /// `RTN_*`.
    var type: UInt8
    /// `RTA_OIF`, or the first next hop's interface of a multipath route.
    var outputInterface: Int32?
    var gateway: [UInt8]?
    /// `RTA_PRIORITY` (the metric); 0 when absent.
    var priority: UInt32

    /// A default route (`0.0.0.0/0` or `::/0`) of the main table that forwards packets.
    var isDefault: Bool {
        destinationLength == 0 && table == Netlink.mainTable && type == Netlink.unicastRoute
    }
}

/// One rtnetlink message, decoded into what the reachability state needs.
enum NetlinkEvent: Sendable, Hashable {
    case link(LinkInfo)
    case linkRemoved(index: Int32)
    case address(AddressInfo)
    case addressRemoved(AddressInfo)
    case route(RouteInfo)
    case routeRemoved(RouteInfo)
    /// `NLMSG_DONE`: the end of a dump.
    case done(sequence: UInt32)
    /// `NLMSG_ERROR`: `code` is a negative errno, or 0 for an acknowledgement.
    case error(sequence: UInt32, code: Int32)
    /// `NLMSG_OVERRUN`: messages were lost; the state must be read again.
    case overrun
}
