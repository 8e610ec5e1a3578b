import Dispatch

/// A serial executor that runs jobs on a `DispatchQueue`.
///
/// ``SessionManager`` uses one of these as its actor executor *and* as the `underlyingQueue` of the
/// URLSession delegate's `OperationQueue`. URLSession delegate callbacks therefore already run on
/// the actor's executor and enter it synchronously with `assumeIsolated` — no lock, no extra queue
/// hop, and a task's callbacks keep their order.
package final class QueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    package init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedSerialExecutor()) }
    }

    package func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    package func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
