/// Decodes the bytes of one `recv` on an rtnetlink socket into events. Pure: no I/O, tested on
/// byte fixtures. Truncated or malformed messages end the parse (nothing past them is trusted);
/// message types it does not need are skipped.
enum NetlinkParser {
    static func parse(_ bytes: [UInt8]) -> [NetlinkEvent] {
        var events: [NetlinkEvent] = []
        var offset = 0
        while offset + Netlink.headerLength <= bytes.count {
            let length = Int(bytes.u32(at: offset))
            guard length >= Netlink.headerLength, offset + length <= bytes.count else { break }
            let type = bytes.u16(at: offset + 4)
            let sequence = bytes.u32(at: offset + 8)
            let body = Array(bytes[(offset + Netlink.headerLength)..<(offset + length)])
            if let event = decode(type: type, sequence: sequence, body: body) { events.append(event) }
            offset += Netlink.align(length)
        }
        return events
    }

    static func decode(type: UInt16, sequence: UInt32, body: [UInt8]) -> NetlinkEvent? {
        switch type {
        case Netlink.done: return .done(sequence: sequence)
        case Netlink.error:
            guard body.count >= 4 else { return nil }
            return .error(sequence: sequence, code: Int32(bitPattern: body.u32(at: 0)))
        case Netlink.overrun: return .overrun
        case Netlink.newLink, Netlink.deleteLink:
            guard let link = link(body) else { return nil }
            return type == Netlink.newLink ? .link(link) : .linkRemoved(index: link.index)
        case Netlink.newAddress, Netlink.deleteAddress:
            guard let address = address(body) else { return nil }
            return type == Netlink.newAddress ? .address(address) : .addressRemoved(address)
        case Netlink.newRoute, Netlink.deleteRoute:
            guard let route = route(body) else { return nil }
            return type == Netlink.newRoute ? .route(route) : .routeRemoved(route)
        default: return nil
        }
    }

    static func link(_ body: [UInt8]) -> LinkInfo? {
        guard body.count >= Netlink.ifinfomsgLength else { return nil }
        var name = ""
        for (type, value) in attributes(body, from: Netlink.ifinfomsgLength) where type == Netlink.linkName {
            name = String(decoding: value.prefix { $0 != 0 }, as: UTF8.self)
        }
        return LinkInfo(
            index: Int32(bitPattern: body.u32(at: 4)), name: name,
            hardwareType: body.u16(at: 2), flags: body.u32(at: 8)
        )
    }

    static func address(_ body: [UInt8]) -> AddressInfo? {
        guard body.count >= Netlink.ifaddrmsgLength else { return nil }
        let family = body[0]
        var local: [UInt8]?
        var peer: [UInt8]?
        for (type, value) in attributes(body, from: Netlink.ifaddrmsgLength) {
            if type == Netlink.addressLocal { local = value }
            if type == Netlink.addressAddress { peer = value }
        }
        // IFA_LOCAL is the interface's own address; IFA_ADDRESS is the peer's on point-to-point links.
        guard let address = local ?? peer, address.count == (family == Netlink.inet ? 4 : 16) else { return nil }
        return AddressInfo(index: Int32(bitPattern: body.u32(at: 4)), family: family, prefixLength: body[1], address: address)
    }

    static func route(_ body: [UInt8]) -> RouteInfo? {
        guard body.count >= Netlink.rtmsgLength else { return nil }
        var route = RouteInfo(
            family: body[0], destinationLength: body[1], table: UInt32(body[4]), type: body[7],
            outputInterface: nil, gateway: nil, priority: 0
        )
        for (type, value) in attributes(body, from: Netlink.rtmsgLength) {
            switch type {
            case Netlink.routeTable where value.count >= 4: route.table = value.u32(at: 0)
            case Netlink.routeOutputInterface where value.count >= 4: route.outputInterface = Int32(bitPattern: value.u32(at: 0))
            case Netlink.routeGateway: route.gateway = value
            case Netlink.routePriority where value.count >= 4: route.priority = value.u32(at: 0)
            case Netlink.routeMultipath:
                // A list of `rtnexthop`; the first next hop's interface stands for the route.
                if route.outputInterface == nil, value.count >= 8 {
                    route.outputInterface = Int32(bitPattern: value.u32(at: 4))
                }
            default: break
            }
        }
        return route
    }

    /// The `rtattr`s after a fixed header of `start` bytes: (type, payload). Stops at the first
    /// malformed one. The top bits of the type (`NLA_F_NESTED`, `NLA_F_NET_BYTEORDER`) are cleared.
    static func attributes(_ body: [UInt8], from start: Int) -> [(UInt16, [UInt8])] {
        var result: [(UInt16, [UInt8])] = []
        var offset = Netlink.align(start)
        while offset + 4 <= body.count {
            let length = Int(body.u16(at: offset))
            guard length >= 4, offset + length <= body.count else { break }
            let type = body.u16(at: offset + 2) & 0x3FFF
            result.append((type, Array(body[(offset + 4)..<(offset + length)])))
            offset += Netlink.align(length)
        }
        return result
    }
}

extension [UInt8] {
    /// A host-order `UInt16` at `offset` (the caller checked the bounds).
    func u16(at offset: Int) -> UInt16 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    }

    /// A host-order `UInt32` at `offset` (the caller checked the bounds).
    func u32(at offset: Int) -> UInt32 {
        withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }
}
