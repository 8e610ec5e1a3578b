#if os(Linux)
import Glibc

/// An rtnetlink socket, in the network namespace of the thread that opened it. Used by one thread
/// only (the monitor's), so it needs no lock.
final class NetlinkSocket {
    let descriptor: Int32
    private var sequence: UInt32 = 0
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    struct Failure: Error { let call: String; let code: Int32 }

    /// Opens a socket; with `groups` it receives those multicast groups' notifications.
    init(groups: UInt32 = 0) throws(Failure) {
        let descriptor = socket(Netlink.addressFamily, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), Netlink.route)
        guard descriptor >= 0 else { throw Failure(call: "socket(AF_NETLINK)", code: errno) }
        var size: Int32 = 1 << 20
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        var address = [UInt8](repeating: 0, count: Netlink.sockaddrLength)
        address.replaceSubrange(0..<2, with: Swift.withUnsafeBytes(of: UInt16(Netlink.addressFamily)) { Array($0) })
        address.replaceSubrange(8..<12, with: Swift.withUnsafeBytes(of: groups) { Array($0) })
        let bound = address.withUnsafeBytes { raw in
            bind(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(Netlink.sockaddrLength))
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw Failure(call: "bind(AF_NETLINK)", code: code)
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The bytes of one datagram (several messages), or `nil` when none is waiting
    /// (`wait: false`). Throws `ENOBUFS` when the kernel dropped notifications.
    func receive(wait: Bool) throws(Failure) -> [UInt8]? {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, wait ? 0 : Int32(MSG_DONTWAIT)) }
            if count >= 0 { return Array(buffer[0..<count]) }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw Failure(call: "recv(AF_NETLINK)", code: code)
        }
    }

    /// Sends `build(sequence)` and collects the events answering it: up to `NLMSG_DONE` for a
    /// dump, or the single reply (or error) otherwise. Gives up after `timeout` milliseconds
    /// without an answer (the kernel answers at once; this only guards against a hang).
    func request(dump: Bool, timeout: Int32 = 5_000, _ build: (UInt32) -> [UInt8]) throws(Failure) -> [NetlinkEvent] {
        sequence &+= 1
        let sequence = sequence
        let message = build(sequence)
        let sent = message.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        guard sent == message.count else { throw Failure(call: "send(AF_NETLINK)", code: errno) }
        var events: [NetlinkEvent] = []
        while true {
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, timeout)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { throw Failure(call: "poll(AF_NETLINK)", code: ETIMEDOUT) }
            guard let bytes = try receive(wait: false) else { continue }
            let headerSequence = bytes.count >= Netlink.headerLength ? bytes.u32(at: 8) : 0
            guard headerSequence == sequence else { continue } // a stale answer to an abandoned request
            for event in NetlinkParser.parse(bytes) {
                switch event {
                case .done: return events
                case .error(_, let code) where code != 0:
                    if dump { throw Failure(call: "netlink dump", code: -code) }
                    events.append(event)
                    return events
                case .overrun: throw Failure(call: "netlink dump", code: ENOBUFS)
                default:
                    events.append(event)
                    if !dump { return events }
                }
            }
        }
    }
}
#endif
