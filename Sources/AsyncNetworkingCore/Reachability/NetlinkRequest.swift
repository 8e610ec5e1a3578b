/// The bytes of the two requests the monitor sends: a route dump, and a route lookup for one
/// address. Pure, so the encoding is tested without a socket.
enum NetlinkRequest {
    /// `RTM_GETROUTE` with `NLM_F_DUMP` for every family: every route of every table.
    static func routeDump(sequence: UInt32) -> [UInt8] {
        message(type: Netlink.getRoute, flags: Netlink.request | Netlink.dump, sequence: sequence,
                body: [UInt8](repeating: 0, count: Netlink.rtmsgLength))
    }

    /// `RTM_GETROUTE` for one destination (`RTA_DST`): the kernel answers with the route a packet
    /// to `address` would take (an `RTM_NEWROUTE` with `RTA_OIF`), or an error such as
    /// `ENETUNREACH`. `address` is 4 (IPv4) or 16 (IPv6) bytes in network order.
    static func routeLookup(to address: [UInt8], sequence: UInt32) -> [UInt8] {
        var body = [UInt8](repeating: 0, count: Netlink.rtmsgLength)
        body[0] = address.count == 4 ? Netlink.inet : Netlink.inet6
        body[1] = UInt8(address.count * 8) // rtm_dst_len: a host route
        body += attribute(type: Netlink.routeDestination, value: address)
        return message(type: Netlink.getRoute, flags: Netlink.request, sequence: sequence, body: body)
    }

    static func message(type: UInt16, flags: UInt16, sequence: UInt32, body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.append(u32: UInt32(Netlink.headerLength + body.count))
        bytes.append(u16: type)
        bytes.append(u16: flags)
        bytes.append(u32: sequence)
        bytes.append(u32: 0) // nlmsg_pid: the kernel fills in the port
        return bytes + body
    }

    static func attribute(type: UInt16, value: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.append(u16: UInt16(4 + value.count))
        bytes.append(u16: type)
        bytes += value
        bytes += [UInt8](repeating: 0, count: Netlink.align(bytes.count) - bytes.count)
        return bytes
    }
}

extension [UInt8] {
    mutating func append(u16 value: UInt16) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }

    mutating func append(u32 value: UInt32) {
        Swift.withUnsafeBytes(of: value) { append(contentsOf: $0) }
    }
}
