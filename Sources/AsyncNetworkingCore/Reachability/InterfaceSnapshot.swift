#if canImport(Glibc)
import Glibc
#endif

/// One `getifaddrs` entry, copied out of the C list: the pure conversion to events is tested on
/// fixtures.
struct InterfaceEntry: Sendable, Hashable {
    var name: String
    /// `ifa_flags`.
    var flags: UInt32
    /// The bytes of `ifa_addr` (a `sockaddr_ll` for `AF_PACKET`, `sockaddr_in`, `sockaddr_in6`).
    var address: [UInt8]
    /// The bytes of `ifa_netmask`, if any.
    var netmask: [UInt8]

    static let packetFamily: UInt16 = 17 // AF_PACKET
    static let inetFamily: UInt16 = 2
    static let inet6Family: UInt16 = 10
}

/// Turns `getifaddrs` entries into the same events rtnetlink sends: a link per `AF_PACKET` entry
/// (index and `ARPHRD_*` type from its `sockaddr_ll`), an address per `AF_INET`/`AF_INET6` entry
/// (prefix length counted from the netmask; the link index found by name).
enum InterfaceSnapshot {
    static func events(from entries: [InterfaceEntry]) -> [NetlinkEvent] {
        var links: [String: LinkInfo] = [:]
        var order: [String] = []
        for entry in entries where entry.family == InterfaceEntry.packetFamily && entry.address.count >= 10 {
            if links[entry.name] == nil { order.append(entry.name) }
            links[entry.name] = LinkInfo(
                index: Int32(bitPattern: entry.address.u32(at: 4)), name: entry.name,
                hardwareType: entry.address.u16(at: 8), flags: entry.flags
            )
        }
        var events = order.compactMap { links[$0].map(NetlinkEvent.link) }
        for entry in entries {
            guard let index = links[entry.name]?.index else { continue }
            let bytes: ArraySlice<UInt8>
            let family: UInt8
            switch entry.family {
            case InterfaceEntry.inetFamily where entry.address.count >= 8:
                (bytes, family) = (entry.address[4..<8], Netlink.inet) // sockaddr_in.sin_addr @4
            case InterfaceEntry.inet6Family where entry.address.count >= 24:
                (bytes, family) = (entry.address[8..<24], Netlink.inet6) // sockaddr_in6.sin6_addr @8
            default:
                continue
            }
            let maskBytes = entry.netmask.count >= bytes.endIndex ? Array(entry.netmask[bytes.indices]) : []
            let prefix = maskBytes.reduce(0) { $0 + $1.nonzeroBitCount }
            events.append(.address(AddressInfo(index: index, family: family, prefixLength: UInt8(prefix), address: Array(bytes))))
        }
        return events
    }

    #if os(Linux)
    /// Reads the calling thread's namespace with `getifaddrs`.
    static func read() -> [InterfaceEntry]? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var entries: [InterfaceEntry] = []
        var cursor = list
        while let entry = cursor?.pointee {
            cursor = entry.ifa_next
            guard let address = entry.ifa_addr, let name = entry.ifa_name else { continue }
            entries.append(InterfaceEntry(
                name: String(cString: name), flags: entry.ifa_flags,
                address: bytes(of: address), netmask: entry.ifa_netmask.map(bytes(of:)) ?? []
            ))
        }
        return entries
    }

    private static func bytes(of address: UnsafeMutablePointer<sockaddr>) -> [UInt8] {
        let length = switch Int32(address.pointee.sa_family) {
        case AF_INET: MemoryLayout<sockaddr_in>.size
        case AF_INET6: MemoryLayout<sockaddr_in6>.size
        default: 20 // sockaddr_ll (AF_PACKET); anything else is ignored after its family
        }
        return Array(UnsafeRawBufferPointer(start: address, count: length))
    }
    #endif
}

extension InterfaceEntry {
    /// `sa_family`, the first two bytes of the address.
    var family: UInt16 { address.count >= 2 ? address.u16(at: 0) : 0 }
}
