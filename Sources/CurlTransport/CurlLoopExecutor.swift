#if os(Linux) && canImport(CCurlShim)
import Dispatch

/// Work queued for the loop thread besides curl commands: a job of the actor whose executor the
/// loop is (a ``SessionManager`` on curl), or a closure that enters that actor synchronously.
enum CurlLoopJob: Sendable {
    /// A job of the actor (enqueued on the ``CurlLoopExecutor`` as a serial executor).
    case job(UnownedJob)
    /// A job of a task that prefers the loop as its task executor (``CurlLoopTaskExecutor``).
    case taskJob(UnownedJob, UnownedTaskExecutor)
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
/// ``CurlLoopTaskExecutor`` offers the same thread as a `TaskExecutor` (``SessionManager/taskExecutor``):
/// a caller's loop over a stream or a batch can run on the loop thread too
/// (`withTaskExecutorPreference`), so chunks reach it with no hand-off at all. The two roles are
/// separate objects because one `enqueue` cannot tell which role a job came through, and the
/// runtime must be told the truth: an actor job run as if its task preferred the loop makes every
/// later switch to the same actor look like a change of task executor, so the runtime enqueues a
/// new job where none is needed — a hidden suspension point (measured: `withUnsafeContinuation`'s
/// closure on the actor ran as a later job, after other actor work).
package final class CurlLoopExecutor: SerialExecutor, Sendable {
    private let mailbox: CurlLoopMailbox
    /// Where jobs run once the loop thread has exited.
    let fallback: DispatchQueue

    init(mailbox: CurlLoopMailbox, fallback: DispatchQueue) {
        self.mailbox = mailbox
        self.fallback = fallback
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `body` on the executor (the loop thread, or the fallback queue once retired) without
    /// creating a task; `body` may enter the actor with `assumeIsolated`.
    package func submit(_ body: @escaping @Sendable () -> Void) {
        submit(.closure(body))
    }

    private func submit(_ job: CurlLoopJob) {
        mailbox.enqueue(job) { [self] retired in run(retired, onFallback: true) }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Queues a job of a task that prefers the loop (from ``CurlLoopTaskExecutor``).
    func submitTaskJob(_ job: UnownedJob, taskExecutor: UnownedTaskExecutor) {
        submit(.taskJob(job, taskExecutor))
    }

    /// Whether the caller runs on the loop thread now.
    var isCurrentThread: Bool { mailbox.isOnLoopThread == true }

    /// On the loop thread, or on the fallback queue once retired.
    package func checkIsolated() {
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
        // A job of the manager's actor: isolated to the loop, with no task executor (its task has
        // no preference, so switching back to this actor later needs no new job).
        case .job(let job): job.runSynchronously(on: asUnownedSerialExecutor())
        // A job of a task that prefers the loop: it runs here with the loop as its task executor,
        // and as isolated to the loop too, so its calls into the actor start in place. (Re-entering
        // the actor from actor code can still queue a job, on this same thread: an actor job of
        // such a task comes through `enqueue` as `.job`, without its task's preference.)
        case .taskJob(let job, let taskExecutor): job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: taskExecutor)
        case .closure(let body): body()
        }
    }
}

/// The curl loop thread as a `TaskExecutor` (``SessionManager/taskExecutor``): jobs of tasks that
/// prefer it run on the loop thread between turns, in order with the actor's jobs (the same queue),
/// or on the fallback queue once the loop has exited.
package final class CurlLoopTaskExecutor: TaskExecutor, Sendable {
    private let loop: CurlLoopExecutor

    init(loop: CurlLoopExecutor) { self.loop = loop }

    package func enqueue(_ job: consuming ExecutorJob) {
        loop.submitTaskJob(UnownedJob(job), taskExecutor: asUnownedTaskExecutor())
    }

    package func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }
}
#endif
