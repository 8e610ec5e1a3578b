import Dispatch
import Foundation
import Synchronization

/// The URLSession delegate queue, with backpressure on Linux.
///
/// FoundationNetworking pushes every callback (each `didReceive data` holding a chunk of up to
/// 16 KiB) onto the delegate queue as fast as libcurl reads the socket, with no limit. When the
/// queue falls behind — a slow disk under a download, spilling for a slow consumer, two cores shared
/// with the server — the queued callbacks hold the body in memory: hundreds of MiB for a 1 GiB
/// transfer. URLSession offers no flow control, but it adds each callback by calling
/// `addOperation(_:)` synchronously on its own work thread. Past ``highWater`` queued callbacks that
/// call waits (up to ``maximumWait`` at a time) until the queue has drained to ``lowWater``: libcurl
/// then stops reading, TCP pushes back on the server, and the memory held in queued callbacks stays
/// under `highWater` × 16 KiB.
///
/// Deadlock guard: URLSession's own methods (creating, resuming or cancelling a task, invalidating)
/// wait for its work thread — and that thread is one serial queue shared by every URLSession in the
/// process (FoundationNetworking's `sharedWorkQueue`). Every manager makes those calls inside
/// ``bypassing(_:)``, which opens the gate of *every* delegate queue in the process for their
/// duration: a manager's call never waits for the work thread while it is held by another
/// manager's slow reader (per queue, each of its task calls could wait a `maximumWait` per callback
/// of the other manager's transfer). A waiting call also gives up after ``maximumWait``, so the gate
/// can only ever slow a transfer, never stop one.
///
/// On Apple platforms the queue is a plain `OperationQueue` (their URLSession is a different
/// implementation).
package final class DelegateQueue: OperationQueue, @unchecked Sendable { // reason: Foundation's own locking plus Atomics and a semaphore
    // reason: OperationQueue is an open Foundation class with its own locking; the added state is
    // only `Atomic` counters and a `DispatchSemaphore`, both thread-safe.

    /// Queued callbacks past which URLSession's work thread waits. 256 × 16 KiB = 4 MiB.
    let highWater: Int
    /// The waiting thread goes on once the queue has drained to this many.
    let lowWater: Int
    /// The longest one wait lasts.
    let maximumWait: DispatchTimeInterval

    private let queue: DispatchQueue
    private let pending = Atomic<Int>(0)
    private let waiters = Atomic<Int>(0)
    private let roomAvailable = DispatchSemaphore(value: 0)
    private let scope: BypassScope

    package init(underlyingQueue queue: DispatchQueue, highWater: Int = 256, lowWater: Int = 64, maximumWait: DispatchTimeInterval = .milliseconds(100), scope: BypassScope = .process) {
        self.highWater = highWater
        self.lowWater = lowWater
        self.maximumWait = maximumWait
        self.queue = queue
        self.scope = scope
        super.init()
        name = "AsyncNetworking.SessionManager.delegate"
        maxConcurrentOperationCount = 1
        underlyingQueue = queue
    }

    #if canImport(FoundationNetworking)
    /// FoundationNetworking adds every delegate callback through this method. Each goes straight to
    /// the serial underlying queue (FIFO, one at a time — what `maxConcurrentOperationCount = 1`
    /// gives), skipping OperationQueue's per-operation machinery (an `Operation` object, KVO,
    /// scheduling locks): three callbacks per small request made it a measurable share of the
    /// request's cost.
    package override func addOperation(_ block: @escaping @Sendable () -> Void) {
        if pending.add(1, ordering: .relaxed).newValue > highWater {
            waitForRoom()
        }
        queue.async { [self] in
            block()
            if pending.subtract(1, ordering: .relaxed).newValue <= lowWater, waiters.load(ordering: .relaxed) > 0 {
                roomAvailable.signal()
            }
        }
    }
    #endif

    /// Callbacks queued and not yet run (for tests and diagnostics).
    var queuedCallbacks: Int { pending.load(ordering: .relaxed) }

    /// Runs `body` — a call into URLSession that may wait for its work thread — with the gate open.
    package func bypassing<T>(_ body: () throws -> T) rethrows -> T {
        scope.bypasses.add(1, ordering: .sequentiallyConsistent)
        scope.waiting.withLock { gates in gates.values.forEach { $0.signal() } }
        defer { scope.bypasses.subtract(1, ordering: .sequentiallyConsistent) }
        return try body()
    }

    private func waitForRoom() {
        waiters.add(1, ordering: .relaxed)
        scope.waiting.withLock { $0[ObjectIdentifier(self)] = roomAvailable }
        defer {
            scope.waiting.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) }
            waiters.subtract(1, ordering: .relaxed)
        }
        // A signal left over from an earlier wait only costs one more turn of the loop.
        let deadline = DispatchTime.now() + maximumWait
        while pending.load(ordering: .relaxed) > lowWater, scope.bypasses.load(ordering: .sequentiallyConsistent) == 0 {
            if roomAvailable.wait(timeout: deadline) == .timedOut { return }
        }
    }
}

/// The delegate queues whose gates one bypass opens: every queue of the process
/// (``DelegateQueue/BypassScope/process``), as URLSession's work thread is one for the process.
extension DelegateQueue {
    package final class BypassScope: Sendable {
        /// Calls into URLSession under way (every manager's).
        let bypasses = Atomic<Int>(0)
        /// The gates waiting now, woken when a bypass starts. (One at most on Linux: the shared
        /// work thread is the only caller of `addOperation`.)
        let waiting = Mutex<[ObjectIdentifier: DispatchSemaphore]>([:])

        /// A scope of its own (tests: queues isolated from the process's other managers).
        package init() {}

        /// Every delegate queue of the process.
        package static let process = BypassScope()
    }
}
