/// The few rtnetlink constants and structure offsets the reachability monitor needs. Glibc does
/// not expose `<linux/netlink.h>` or `<linux/rtnetlink.h>` to Swift, so they are copied here from
/// those headers (stable kernel ABI). Every multi-byte field is in host byte order, every
/// structure is padded to 4 bytes (`NLMSG_ALIGN`, `RTA_ALIGN`).
///
/// Offsets (bytes):
/// - `struct nlmsghdr` (16): `nlmsg_len` u32 @0, `nlmsg_type` u16 @4, `nlmsg_flags` u16 @6,
///   `nlmsg_seq` u32 @8, `nlmsg_pid` u32 @12.
/// - `struct nlmsgerr`: `error` i32 @0 (negative errno, 0 for an acknowledgement), then the
///   offending `nlmsghdr`.
/// - `struct ifinfomsg` (16): `ifi_family` u8 @0, pad u8 @1, `ifi_type` u16 @2 (`ARPHRD_*`),
///   `ifi_index` i32 @4, `ifi_flags` u32 @8, `ifi_change` u32 @12.
/// - `struct ifaddrmsg` (8): `ifa_family` u8 @0, `ifa_prefixlen` u8 @1, `ifa_flags` u8 @2,
///   `ifa_scope` u8 @3, `ifa_index` u32 @4.
/// - `struct rtmsg` (12): `rtm_family` u8 @0, `rtm_dst_len` u8 @1, `rtm_src_len` u8 @2,
///   `rtm_tos` u8 @3, `rtm_table` u8 @4, `rtm_protocol` u8 @5, `rtm_scope` u8 @6, `rtm_type` u8 @7,
///   `rtm_flags` u32 @8.
/// - `struct rtattr` (4): `rta_len` u16 @0, `rta_type` u16 @2, then the payload.
/// - `struct rtnexthop` (8): `rtnh_len` u16 @0, `rtnh_flags` u8 @2, `rtnh_hops` u8 @3,
///   `rtnh_ifindex` i32 @4, then attributes.
/// - `struct sockaddr_nl` (12): `nl_family` u16 @0, pad u16 @2, `nl_pid` u32 @4, `nl_groups` u32 @8.
/// - `struct sockaddr_ll` (20): `sll_family` u16 @0, `sll_protocol` u16 @2, `sll_ifindex` i32 @4,
///   `sll_hatype` u16 @8, ...
enum Netlink {
    static let headerLength = 16
    static let ifinfomsgLength = 16
    static let ifaddrmsgLength = 8
    static let rtmsgLength = 12
    static let sockaddrLength = 12

    static let route: Int32 = 0 // NETLINK_ROUTE
    static let addressFamily: Int32 = 16 // AF_NETLINK

    // Message types.
    static let noop: UInt16 = 1
    static let error: UInt16 = 2
    static let done: UInt16 = 3
    static let overrun: UInt16 = 4
    static let newLink: UInt16 = 16
    static let deleteLink: UInt16 = 17
    static let getLink: UInt16 = 18
    static let newAddress: UInt16 = 20
    static let deleteAddress: UInt16 = 21
    static let getAddress: UInt16 = 22
    static let newRoute: UInt16 = 24
    static let deleteRoute: UInt16 = 25
    static let getRoute: UInt16 = 26

    // Header flags.
    static let request: UInt16 = 0x1
    static let multi: UInt16 = 0x2
    static let ack: UInt16 = 0x4
    static let dump: UInt16 = 0x300 // NLM_F_ROOT | NLM_F_MATCH

    /// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE`.
    static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    // Attribute types.
    static let linkName: UInt16 = 3 // IFLA_IFNAME
    static let addressAddress: UInt16 = 1 // IFA_ADDRESS
    static let addressLocal: UInt16 = 2 // IFA_LOCAL
    static let routeDestination: UInt16 = 1 // RTA_DST
    static let routeOutputInterface: UInt16 = 4 // RTA_OIF
    static let routeGateway: UInt16 = 5 // RTA_GATEWAY
    static let routePriority: UInt16 = 6 // RTA_PRIORITY
    static let routeMultipath: UInt16 = 9 // RTA_MULTIPATH
    static let routeTable: UInt16 = 15 // RTA_TABLE

    // Values.
    static let mainTable: UInt32 = 254 // RT_TABLE_MAIN
    static let unicastRoute: UInt8 = 1 // RTN_UNICAST
    static let localRoute: UInt8 = 2 // RTN_LOCAL
    static let inet: UInt8 = 2 // AF_INET
    static let inet6: UInt8 = 10 // AF_INET6

    // Interface flags (`<net/if.h>`, `<linux/if.h>`).
    static let flagUp: UInt32 = 0x1
    static let flagLoopback: UInt32 = 0x8
    static let flagRunning: UInt32 = 0x40
    static let flagLowerUp: UInt32 = 0x10000

    // Hardware types (`<linux/if_arp.h>`).
    static let hardwareEthernet: UInt16 = 1 // ARPHRD_ETHER
    static let hardwareLoopback: UInt16 = 772 // ARPHRD_LOOPBACK

    /// `NLMSG_ALIGN` / `RTA_ALIGN`.
    static func align(_ length: Int) -> Int { (length + 3) & ~3 }
}
