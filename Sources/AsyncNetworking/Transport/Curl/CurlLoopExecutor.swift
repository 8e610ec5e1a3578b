#if os(Linux) && canImport(CCurlShim)
import Dispatch

/// Work queued for the loop thread besides curl commands: a job of the actor whose executor the
/// loop is (a ``SessionManager`` on curl), or a closure that enters that actor synchronously.
enum CurlLoopJob: Sendable {
    case job(UnownedJob)
    case closure(@Sendable () -> Void)
}

/// The executor of a ``SessionManager`` on curl: its jobs run **on the curl loop thread**, between
/// `curl_multi_perform` turns, so transport events enter the actor with no thread hop (the loop's
/// event handler calls `assumeIsolated`) and a request costs the two hand-offs that cannot be
/// avoided: caller → loop (`enqueue` wakes `curl_multi_poll`) and loop → caller (the caller's
/// continuation). SwiftNIO's event loops are executors in the same way.
///
/// Once the loop thread has exited (after invalidation or when the manager is released) the
/// executor retires to `fallback`, a serial dispatch queue: jobs still queued move there in order,
/// and later jobs go straight to it, so an actor call after shutdown still runs (and never hangs).
/// The switch happens under the mailbox's lock while no job runs, so jobs never overlap.
///
/// It is also a `TaskExecutor` (``SessionManager/taskExecutor``): a caller's loop over a stream or
/// a batch can run on the loop thread too (`withTaskExecutorPreference`), so chunks reach it with
/// no hand-off at all.
final class CurlLoopExecutor: SerialExecutor, TaskExecutor, Sendable {
    private let mailbox: CurlLoopMailbox
    /// Where jobs run once the loop thread has exited.
    let fallback: DispatchQueue

    init(mailbox: CurlLoopMailbox, fallback: DispatchQueue) {
        self.mailbox = mailbox
        self.fallback = fallback
    }

    func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `body` on the executor (the loop thread, or the fallback queue once retired) without
    /// creating a task; `body` may enter the actor with `assumeIsolated`.
    func submit(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body))
    }

    private func submit(_ job: CurlLoopJob) {
        mailbox.enqueue(job) { [self] retired in run(retired, onFallback: true) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Whether the caller runs on the loop thread now.
    var isCurrentThread: Bool { mailbox.isOnLoopThread == true }

    /// On the loop thread, or on the fallback queue once retired.
    func checkIsolated() {
        switch mailbox.isOnLoopThread {
        case true?: return
        case nil: dispatchPrecondition(condition: .onQueue(fallback))
        case false?: preconditionFailure("not on the curl loop thread, which is this actor's executor")
        }
    }

    /// Runs one job on the current thread (the loop thread, or a fallback hand-off).
    func run(_ job: CurlLoopJob, onFallback: Bool = false) {
        if onFallback {
            fallback.async { [self] in run(job) }
            return
        }
        switch job {
        // A job of the manager's actor, or of a task that prefers this executor: either way it
        // runs here, isolated to the loop and with the loop as its task executor.
        case .job(let job): job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        case .closure(let body): body()
        }
    }
}
#endif
