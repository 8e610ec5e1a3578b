#if canImport(Glibc)
import Glibc
#endif

/// The addresses a host name or literal stands for, as the route lookups need them.
enum HostAddresses {
    /// A host as given to `NetworkReachability(host:)`: brackets around an IPv6 literal removed.
    static func normalized(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    #if os(Linux)
    /// `getaddrinfo` (IPv4 and IPv6, one entry per address, in the resolver's order): 4- or
    /// 16-byte addresses in network order. Blocks for a name that is not in `/etc/hosts` while
    /// DNS answers; empty when it cannot be resolved.
    static func resolve(_ host: String) -> [[UInt8]] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(normalized(host), nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var result: [[UInt8]] = []
        var cursor = list
        while let entry = cursor?.pointee {
            cursor = entry.ai_next
            guard let address = entry.ai_addr else { continue }
            let bytes: [UInt8]
            switch entry.ai_family {
            case AF_INET:
                bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Swift.withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
            case AF_INET6:
                bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Swift.withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
            default:
                continue
            }
            if !result.contains(bytes) { result.append(bytes) }
        }
        return result
    }
    #endif
}
