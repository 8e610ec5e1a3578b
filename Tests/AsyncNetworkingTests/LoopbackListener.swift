import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 with a port the kernel chose: the start every raw-socket
/// test server shares (they play what LoopbackServer cannot: stalls, early answers, odd bodies).
/// - Returns: the listening descriptor and its port.
func openLoopbackListener(backlog: Int32 = 64) throws -> (listener: Int32, port: UInt16) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard listener >= 0 else { throw POSIXError(.EMFILE) }
    var one: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(listener, backlog) == 0 else { close(listener); throw POSIXError(.EADDRINUSE) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    return (listener, UInt16(bigEndian: address.sin_port))
}
