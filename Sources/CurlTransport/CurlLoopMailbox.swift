#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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
struct CurlMultiHandle: @unchecked Sendable { // reason: a C pointer; see above for the one cross-thread use
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
        /// Jobs of the executor (``CurlLoopExecutor``) not yet run, in order.
        var jobs: [CurlLoopJob] = []
        /// The loop thread (set when it starts), for ``isOnLoopThread``.
        var loopThread: pthread_t?
        /// The loop thread has exited: jobs go to the executor's fallback queue.
        var jobsRetired = false
        /// The loop thread is spinning briefly before it sleeps (``spin(for:)``): it sees new work
        /// without a wake-up, so none is sent.
        var spinning = false
    }

    private let state = SanitizedMutex(State())
    private let multi: CurlMultiHandle
    /// Counts posts (commands, jobs, shutdown), so ``spin(for:)`` can watch for new work without
    /// taking the lock on every check. Only a hint: the decision is made under the lock.
    private let posts = Atomic<UInt64>(0)

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

    // MARK: - Executor jobs

    /// Queues a job for the loop thread and wakes it (a job queued by the loop thread itself needs
    /// no wake-up: the loop checks ``hasWork`` before it sleeps). Once the loop has exited, hands
    /// the job to `retired` instead, under the lock, so jobs keep their order.
    /// While the loop thread waits for a server-trust evaluator, the job pokes that wait: the
    /// loop runs jobs meanwhile (a cancel must reach the actor to end the wait).
    func enqueue(_ job: CurlLoopJob, retired: (CurlLoopJob) -> Void) {
        let waiting = state.withLock { state -> CurlTrustWait? in
            guard !state.jobsRetired else {
                retired(job)
                return nil
            }
            state.jobs.append(job)
            wake(&state)
            return state.trustWait?.wait
        }
        waiting?.poke()
    }

    /// Loop thread: takes the queued jobs.
    func takeJobs() -> [CurlLoopJob] {
        state.withLock { state in
            guard !state.jobs.isEmpty else { return [] }
            let jobs = state.jobs
            state.jobs = []
            return jobs
        }
    }

    /// Loop thread, before it sleeps after a turn that resumed callers: waits up to `nanoseconds`
    /// for new work without sleeping — a caller that got its answer usually sends its next request
    /// within microseconds, and finding it here saves the wake-up syscall, the poll's return and a
    /// context switch. Submitters send no wake-up meanwhile; the last check is made under the lock
    /// together with clearing the flag, so no job is ever left waiting for a wake-up that was
    /// skipped. Returns whether work arrived.
    func spin(for nanoseconds: UInt64) -> Bool {
        let seen = state.withLock { state -> UInt64 in
            state.spinning = true
            return posts.load(ordering: .acquiring)
        }
        // Watch the post counter (no lock, no syscall); read the clock every 64 checks.
        let deadline = DispatchTime.now().uptimeNanoseconds &+ nanoseconds
        spinning: while true {
            for _ in 0..<64 where posts.load(ordering: .acquiring) != seen { break spinning }
            if DispatchTime.now().uptimeNanoseconds >= deadline { break }
        }
        return state.withLock { state in
            state.spinning = false
            return !state.jobs.isEmpty || !state.commands.isEmpty
        }
    }

    /// Whether jobs or commands wait (then the loop must not sleep).
    var hasWork: Bool { state.withLock { !$0.jobs.isEmpty || !$0.commands.isEmpty } }

    /// Loop thread, first act: records the thread.
    func markLoopThread() {
        state.withLock { $0.loopThread = pthread_self() }
    }

    /// Whether the caller runs on the loop thread (`true`), or the loop has exited and jobs run
    /// on the fallback queue (`nil`), or neither (`false`).
    var isOnLoopThread: Bool? {
        state.withLock { state in
            if state.jobsRetired { return nil }
            guard let loop = state.loopThread else { return false }
            return pthread_equal(loop, pthread_self()) != 0
        }
    }

    /// Loop thread, after its last turn: from now on jobs go to `fallback`; those still queued are
    /// handed to it first, in order.
    func retireJobs(to fallback: (CurlLoopJob) -> Void) {
        state.withLock { state in
            state.jobsRetired = true
            for job in state.jobs { fallback(job) }
            state.jobs = []
        }
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

    /// Wakes `curl_multi_poll`, unless a wake-up is already pending, the loop has closed, or the
    /// caller is the loop thread itself (it checks ``hasWork`` before it sleeps).
    private func wake(_ state: inout State) {
        posts.add(1, ordering: .releasing)
        guard !state.wakePending, !state.closed, !state.spinning else { return }
        if let loop = state.loopThread, pthread_equal(loop, pthread_self()) != 0 { return }
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
