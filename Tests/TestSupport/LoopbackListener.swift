import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
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

/// A port on 127.0.0.1 nothing listens on (a listener on port 0, read back, then closed): the port
/// to give a server that must be told one, or to connect to and be refused.
func unusedLoopbackPort() throws -> Int {
    let (listener, port) = try openLoopbackListener()
    close(listener)
    return Int(port)
}

/// Polls a TCP connect to 127.0.0.1:`port` until it succeeds (`true`), or `child` exits or
/// `seconds` pass (`false`): for a server started as a child process that cannot report its port.
func waitUntilListening(_ port: Int, child: Subprocess.Child, within seconds: Double) -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline, child.isRunning {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        close(descriptor)
        if connected { return true }
        usleep(20_000)
    }
    return false
}

/// The connection machinery every raw-socket test server shares: a listener on 127.0.0.1, an
/// accept loop and a thread per connection (none on the cooperative pool), and a `stop()` that
/// touches only descriptors it still owns.
///
/// The rule it keeps: a connection's descriptor is shut down only under the lock while it is in
/// the open set, and its serving thread leaves the set under that lock before closing it — so a
/// descriptor number the kernel has handed to someone else (another test's socket, curl's) is
/// never shut down or closed here. `stop()` is idempotent.
final class RawSocketServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = SanitizedMutex<(stopped: Bool, open: Set<Int32>)>((false, []))

    /// Opens the listener; nothing is accepted before ``start(_:)``.
    init() throws {
        (listener, port) = try openLoopbackListener()
    }

    /// Accepts connections and runs `serve` for each on a thread of its own; the connection is
    /// closed when `serve` returns (or ended by ``stop()``).
    func start(_ serve: @escaping @Sendable (Int32) -> Void) {
        Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                let admitted = state.withLock { state -> Bool in
                    guard !state.stopped else { return false }
                    state.open.insert(client)
                    return true
                }
                guard admitted else { close(client); return }
                Thread { [self] in
                    serve(client)
                    state.withLock { _ = $0.open.remove(client) }
                    close(client)
                }.start()
            }
        }.start()
    }

    /// Whether ``stop()`` was called (a serving thread that holds a connection open waits for it).
    var isStopped: Bool { state.withLock { $0.stopped } }

    /// Stops accepting and shuts every open connection down (their threads close them).
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            for socket in state.open { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Holds the calling serving thread until ``stop()`` (a connection left open on purpose).
    func holdUntilStopped() {
        while !isStopped { usleep(20_000) }
    }
}
