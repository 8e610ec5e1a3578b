#if os(Linux) && canImport(CCurlShim)
import CCurlShim

/// A request from any thread to the loop thread.
enum CurlLoopCommand: Sendable {
    case start(CurlTransferID, CurlRequest)
    case cancel(CurlTransferID)
    case pauseReceiving(CurlTransferID)
    case resumeReceiving(CurlTransferID)
    case consumed(CurlTransferID, totalBytes: Int64)
    case pauseSending(CurlTransferID)
    case resumeSending(CurlTransferID)
}

/// A snapshot of a loop's counters, published by the loop thread at the end of every turn.
struct CurlLoopStats: Sendable, Hashable {
    /// Transfers started and not yet completed (including those still waiting in the command queue).
    var activeTransfers = 0
    /// Easy handles that exist (running, or idle in the reuse pool); 0 once the loop has stopped.
    var liveEasyHandles = 0
    /// Idle easy handles kept for reuse.
    var pooledEasyHandles = 0
    /// Loop turns run (one `curl_multi_perform` + event delivery each).
    var turns = 0
    /// Event batches handed to the handler (turns with at least one event).
    var batches = 0
    /// Events handed to the handler in all.
    var events = 0
    /// `false` once the loop thread has exited.
    var isRunning = true
}

/// `CURLM *`, shared with other threads only for `curl_multi_wakeup`, which libcurl documents as
/// callable from any thread; every other use is on the loop thread.
struct CurlMultiHandle: @unchecked Sendable { // a C pointer; see above for the one cross-thread use
    let pointer: OpaquePointer
}

/// The only state a `CurlMultiLoop` shares between threads: the command queue, the wake-up flag,
/// the published stats and the stop notification, all behind one lock.
///
/// A post wakes `curl_multi_poll` (once until the loop takes the queue again) under the lock, so a
/// wake-up can never reach a multi handle the loop thread has already cleaned up.
final class CurlLoopMailbox: Sendable {
    private struct State: Sendable {
        var commands: [CurlLoopCommand] = []
        var wakePending = false
        var shutdownRequested = false
        /// The loop thread no longer takes commands; the multi handle may be gone.
        var closed = false
        var nextID: UInt64 = 0
        var started = 0
        var stats = CurlLoopStats()
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
        /// The loop thread is blocked waiting for this transfer's server-trust evaluator.
        var trustWait: (id: CurlTransferID, wait: CurlTrustWait)?
    }

    private let state = SanitizedMutex(State())
    private let multi: CurlMultiHandle

    init(multi: CurlMultiHandle) {
        self.multi = multi
    }

    /// Queues a start; returns `nil` once shutdown was requested.
    func postStart(_ request: CurlRequest) -> CurlTransferID? {
        state.withLock { state in
            guard !state.shutdownRequested else { return nil }
            state.nextID += 1
            let id = CurlTransferID(rawValue: state.nextID)
            state.commands.append(.start(id, request))
            state.started += 1
            wake(&state)
            return id
        }
    }

    /// Queues a command (dropped once shutdown was requested: shutdown completes every transfer).
    /// A cancel also ends the wait for that transfer's server-trust evaluator at once.
    func post(_ command: CurlLoopCommand) {
        let waiting = state.withLock { state -> CurlTrustWait? in
            guard !state.shutdownRequested else { return nil }
            state.commands.append(command)
            wake(&state)
            if case .cancel(let id) = command, let trust = state.trustWait, trust.id == id { return trust.wait }
            return nil
        }
        waiting?.resolve(.cancelled)
    }

    /// Asks the loop to cancel everything and exit (ending any server-trust wait).
    func requestShutdown() {
        let waiting = state.withLock { state -> CurlTrustWait? in
            guard !state.shutdownRequested else { return nil }
            state.shutdownRequested = true
            wake(&state)
            return state.trustWait?.wait
        }
        waiting?.resolve(.cancelled)
    }

    /// Loop thread: it is about to block on `wait` for transfer `id`. A cancel of `id` (or a
    /// shutdown) already queued ends the wait at once.
    func beginTrustWait(_ wait: CurlTrustWait, for id: CurlTransferID) {
        let over = state.withLock { state -> Bool in
            state.trustWait = (id, wait)
            return state.shutdownRequested || state.commands.contains { if case .cancel(id) = $0 { true } else { false } }
        }
        if over { wait.resolve(.cancelled) }
    }

    /// Loop thread: the wait is over.
    func endTrustWait() {
        state.withLock { $0.trustWait = nil }
    }

    private func wake(_ state: inout State) {
        guard !state.wakePending, !state.closed else { return }
        state.wakePending = true
        _ = ancurl_multi_wakeup(multi.pointer)
    }

    /// Loop thread: takes the queued commands and whether shutdown was requested.
    func take() -> (commands: [CurlLoopCommand], shutdown: Bool) {
        state.withLock { state in
            state.wakePending = false
            let commands = state.commands
            state.commands = []
            return (commands, state.shutdownRequested)
        }
    }

    /// Loop thread: publishes counters. `started` transfers not yet taken count as active.
    func publish(_ update: (inout CurlLoopStats) -> Void, completedSoFar: Int) {
        state.withLock { state in
            update(&state.stats)
            state.stats.activeTransfers = state.started - completedSoFar
        }
    }

    /// Loop thread: no more wake-ups from here on (the multi handle is about to be cleaned up).
    func close() {
        state.withLock { state in
            state.closed = true
            state.commands = []
        }
    }

    /// Loop thread, last act: marks the loop stopped and resumes everyone waiting for that.
    func markStopped() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.stats.isRunning = false
            let waiters = state.stopWaiters
            state.stopWaiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var stats: CurlLoopStats { state.withLock { $0.stats } }

    /// Suspends until ``markStopped()`` has run (at once if it has).
    func waitUntilStopped() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                guard state.stats.isRunning else { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
#endif
