#if os(Linux)
import Foundation
import Synchronization

/// Runs a ``ReachabilityTracker`` on a thread of its own, blocked in `poll` on the netlink socket
/// and a pipe: no polling, no timer. A dedicated thread because the monitor may live in another
/// network namespace (tests), which `setns` changes per thread.
final class LinuxReachabilityMonitor: Sendable {
    /// The pipe's write end; closing it wakes the thread, which then exits.
    private let wakeWriter: Int32
    private let stopped = Atomic<Bool>(false)

    /// Starts the thread and returns once the first status is published.
    ///
    /// - Parameter namespacePath: a network namespace to run in (`/var/run/netns/<name>`), or
    ///   `nil` for the process's own. In another namespace sysfs is not read (it shows the
    ///   namespace it was mounted in), so links are classified by type and name only.
    init(host: String?, namespacePath: String?, broadcaster: ReachabilityBroadcaster) throws(NetworkingError) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            throw NetworkingError(.reachabilityUnavailable, "pipe failed (errno \(errno))")
        }
        _ = fcntl(pipeEnds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeEnds[1], F_SETFD, FD_CLOEXEC)
        let wakeReader = pipeEnds[0]
        wakeWriter = pipeEnds[1]
        let startup = StartupSignal()
        let thread = Thread {
            defer { close(wakeReader) }
            if let namespacePath, let code = NetworkNamespace.enter(namespacePath) {
                return startup.fail("cannot enter the network namespace \(namespacePath) (errno \(code))")
            }
            let tracker: ReachabilityTracker
            do throws(NetlinkSocket.Failure) {
                tracker = try ReachabilityTracker(host: host, readsSysfs: namespacePath == nil, broadcaster: broadcaster)
            } catch {
                return startup.fail("\(error.call) failed (errno \(error.code))")
            }
            startup.succeed()
            tracker.run(until: wakeReader)
        }
        thread.name = "AsyncNetworking.Reachability"
        thread.start()
        if let message = startup.wait() {
            // Through `stop()`, never a bare `close`: the instance is fully initialized, so its
            // deinit runs after this throw and would close the write end a second time — by then
            // possibly another thread's socket or file under the same number.
            stop()
            throw NetworkingError(.reachabilityUnavailable, message)
        }
    }

    /// Stops the thread (once); it closes its sockets on the way out. Does not wait.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(wakeWriter)
    }

    deinit { stop() }
}

/// The monitor thread's first word to the initializer: started, or why not.
private final class StartupSignal: Sendable {
    private let outcome = SanitizedMutex<String??>(nil)
    private let semaphore = DispatchSemaphore(value: 0)

    func succeed() {
        outcome.withLock { $0 = .some(nil) }
        semaphore.signal()
    }

    func fail(_ message: String) {
        outcome.withLock { $0 = .some(message) }
        semaphore.signal()
    }

    /// Blocks until the thread reports; returns the failure message, if any.
    func wait() -> String? {
        semaphore.wait()
        return outcome.withLock { $0 ?? nil }
    }
}
#endif
