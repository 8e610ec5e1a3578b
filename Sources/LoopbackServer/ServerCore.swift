import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The shared state of one server: the listener, the stop pipe, the registry of open
/// connections, counters and the request log. Server threads hold this, never the public
/// ``LoopbackServer``, so dropping the last user reference runs `deinit` (and `stop()`).
final class ServerCore: Sendable {
    let listenFD: Int32
    let port: UInt16
    /// Read end of the stop pipe: readable from `stop()` on, and polled by every wait.
    let wakeFD: Int32
    private let wakeWriteFD: Int32
    /// Entered once per server thread; `stop()` waits for it to empty.
    private let threads = DispatchGroup()
    private let state = SanitizedMutex(State())

    /// The most requests the log keeps.
    static let logLimit = 10_000

    private struct State: Sendable {
        var stopping = false
        var stopped = false
        var connections: Set<Int32> = []
        var nextConnectionID = 0
        var stats = LoopbackServer.Stats()
        var log: [RecordedRequest] = []
        var resourceVersion = 0
    }

    init() throws(LoopbackServerError) {
        Socket.ignoreSIGPIPE
        let listener = try Socket.makeListener()
        let pipe: (read: Int32, write: Int32)
        do {
            pipe = try Socket.makeWakePipe()
        } catch {
            close(listener.fd)
            throw error
        }
        listenFD = listener.fd
        port = listener.port
        wakeFD = pipe.read
        wakeWriteFD = pipe.write
    }

    /// Starts the accept thread.
    func start() {
        spawn(name: "LoopbackServer accept :\(port)") { core in core.acceptLoop() }
    }

    private func spawn(name: String, _ body: @escaping @Sendable (ServerCore) -> Void) {
        threads.enter()
        let thread = Thread { [self] in
            body(self)
            threads.leave()
        }
        thread.name = name
        thread.start()
    }

    // MARK: - Accepting

    private func acceptLoop() {
        var fds = [
            pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        while !isStopping {
            fds[0].revents = 0
            fds[1].revents = 0
            guard Socket.poll(&fds, timeout: -1) >= 0 else { return }
            if fds[1].revents != 0 { return }
            acceptPending()
        }
    }

    /// Accepts every pending connection (the listener is non-blocking).
    private func acceptPending() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED:
                    continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    waitForStop(milliseconds: 50) // out of descriptors: back off instead of spinning
                    return
                default:
                    return // EAGAIN: nothing left; anything else: try again after the next poll
                }
            }
            Socket.configureAccepted(fd)
            guard let id = register(fd) else {
                close(fd)
                return
            }
            spawn(name: "LoopbackServer connection \(id)") { core in
                Connection(fd: fd, id: id, core: core).serve()
            }
        }
    }

    private func register(_ fd: Int32) -> Int? {
        state.withLock { state in
            guard !state.stopping else { return nil }
            state.connections.insert(fd)
            state.nextConnectionID += 1
            state.stats.connectionCount += 1
            state.stats.openConnections += 1
            return state.nextConnectionID
        }
    }

    /// Closes a connection's socket, optionally with RST. Done under the lock, so `stop()` can
    /// never shut down a descriptor number that was already closed and reused.
    func closeConnection(_ fd: Int32, reset: Bool) {
        state.withLock { state in
            if reset { Socket.setResetOnClose(fd) }
            close(fd)
            state.connections.remove(fd)
            state.stats.openConnections -= 1
        }
    }

    /// Sleeps up to `milliseconds`, returning early once `stop()` has begun.
    func waitForStop(milliseconds: Int32) {
        var fds = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        _ = Socket.poll(&fds, timeout: milliseconds)
    }

    // MARK: - Stopping

    /// Whether `stop()` has begun.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Wakes and joins every server thread, then closes the listener. Idempotent.
    func stop() {
        let first = state.withLock { state in
            guard !state.stopping else { return false }
            state.stopping = true
            for fd in state.connections { _ = shutdown(fd, Int32(SHUT_RDWR)) }
            return true
        }
        if first {
            var byte: UInt8 = 1
            _ = write(wakeWriteFD, &byte, 1)
            _ = shutdown(listenFD, Int32(SHUT_RDWR))
        }
        threads.wait()
        let closeNow = state.withLock { state in
            guard !state.stopped else { return false }
            state.stopped = true
            return true
        }
        if closeNow {
            close(listenFD)
            close(wakeFD)
            close(wakeWriteFD)
        }
    }

    // MARK: - Counters

    var stats: LoopbackServer.Stats { state.withLock { $0.stats } }

    func resetStats() {
        state.withLock { state in
            let open = state.stats.openConnections
            let inFlight = state.stats.inFlight
            state.stats = LoopbackServer.Stats()
            state.stats.openConnections = open
            state.stats.inFlight = inFlight
            state.stats.maxInFlight = inFlight
        }
    }

    /// A request head was parsed.
    func requestStarted() {
        state.withLock { state in
            state.stats.requestCount += 1
            state.stats.inFlight += 1
            state.stats.maxInFlight = max(state.stats.maxInFlight, state.stats.inFlight)
        }
    }

    /// The last bytes of a response are about to be sent.
    func responseCompleting() {
        state.withLock { state in
            state.stats.inFlight -= 1
            state.stats.completedResponses += 1
        }
    }

    /// Sending those last bytes failed after ``responseCompleting()``.
    func completedResponseFailed(clientAbort: Bool) {
        state.withLock { state in
            state.stats.completedResponses -= 1
            if clientAbort { state.stats.clientAborts += 1 }
        }
    }

    /// A request ended without a complete response.
    func requestEnded(clientAbort: Bool) {
        state.withLock { state in
            state.stats.inFlight -= 1
            if clientAbort { state.stats.clientAborts += 1 }
        }
    }

    // MARK: - Request log and resource version

    func record(_ request: RecordedRequest) {
        state.withLock { state in
            state.log.append(request)
            if state.log.count > Self.logLimit + Self.logLimit / 5 {
                state.log.removeFirst(state.log.count - Self.logLimit)
            }
        }
    }

    var requests: [RecordedRequest] {
        state.withLock { Array($0.log.suffix(Self.logLimit)) }
    }

    func clearRequests() {
        state.withLock { $0.log.removeAll() }
    }

    var resourceVersion: Int {
        get { state.withLock { $0.resourceVersion } }
        set { state.withLock { $0.resourceVersion = newValue } }
    }

    func bumpResourceVersion() -> Int {
        state.withLock { state in
            state.resourceVersion += 1
            return state.resourceVersion
        }
    }
}
