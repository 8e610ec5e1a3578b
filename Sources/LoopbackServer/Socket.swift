#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, platform-neutral wrappers over the BSD socket calls the server makes.
enum Socket {
    /// `SOCK_STREAM` as the `socket` call wants it on this platform.
    static var streamType: Int32 {
        #if canImport(Glibc)
        return Int32(SOCK_STREAM.rawValue)
        #else
        return SOCK_STREAM
        #endif
    }

    /// Flags for `send`: `MSG_NOSIGNAL` where it exists (Darwin uses `SO_NOSIGPIPE` instead).
    static var sendFlags: Int32 {
        #if canImport(Glibc)
        return Int32(MSG_NOSIGNAL)
        #else
        return 0
        #endif
    }

    /// Ignores SIGPIPE process-wide, once: a vanished client must be an error, not a crash.
    static let ignoreSIGPIPE: Void = {
        _ = signal(SIGPIPE, SIG_IGN)
    }()

    /// Sets an integer socket option; failures are ignored (these are optimisations).
    static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) {
        var value = value
        _ = setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Marks `fd` close-on-exec so child processes (tests run `gzip`) never inherit it.
    static func setCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    /// Switches `O_NONBLOCK` on or off.
    static func setNonBlocking(_ fd: Int32, _ enabled: Bool) {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0 else { return }
        _ = fcntl(fd, F_SETFL, enabled ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }

    /// Prepares an accepted connection: blocking, close-on-exec, `TCP_NODELAY`, no SIGPIPE.
    static func configureAccepted(_ fd: Int32) {
        setNonBlocking(fd, false) // Darwin sockets inherit O_NONBLOCK from the listener
        setCloseOnExec(fd)
        setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        #if canImport(Darwin)
        setOption(fd, SOL_SOCKET, SO_NOSIGPIPE, 1)
        #endif
    }

    /// Makes the next `close` of `fd` send RST instead of FIN (`SO_LINGER` {1, 0}).
    static func setResetOnClose(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Creates a non-blocking, close-on-exec listener on 127.0.0.1 port 0 and returns it with the bound port.
    static func makeListener() throws(LoopbackServerError) -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw .socketFailed(errno: errno) }
        setCloseOnExec(fd)
        setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .bindFailed(errno: code)
        }
        guard listen(fd, 1024) == 0 else {
            let code = errno
            close(fd)
            throw .listenFailed(errno: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw .getsocknameFailed(errno: code)
        }
        setNonBlocking(fd, true)
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    /// Creates the stop pipe: written once by `stop()`, never read, so it stays readable and
    /// wakes every `poll` that includes its read end.
    static func makeWakePipe() throws(LoopbackServerError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw .pipeFailed(errno: errno) }
        setCloseOnExec(fds[0])
        setCloseOnExec(fds[1])
        return (fds[0], fds[1])
    }

    /// Sends every byte of `bytes`; returns `false` if the peer is gone (EPIPE, ECONNRESET, …).
    static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let sent = send(fd, base + offset, bytes.count - offset, sendFlags)
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }

    /// Receives into `buffer`; returns the count, 0 at end of stream or on a reset connection.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        while true {
            let received = recv(fd, base, buffer.count, 0)
            if received < 0 && errno == EINTR { continue }
            return max(received, 0)
        }
    }

    /// Polls `fds`, retrying on EINTR; `timeout` in milliseconds, -1 for none.
    static func poll(_ fds: inout [pollfd], timeout: Int32) -> Int32 {
        while true {
            let result = fds.withUnsafeMutableBufferPointer { buffer in
                #if canImport(Glibc)
                Glibc.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #else
                Darwin.poll(buffer.baseAddress, nfds_t(buffer.count), timeout)
                #endif
            }
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}
