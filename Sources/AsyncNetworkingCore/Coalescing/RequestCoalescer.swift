import Foundation

/// Shares one in-flight operation between the callers that ask for the same ``CoalescingKey``
/// while it runs (opt-in request coalescing, see ``TransferOptions/coalescesIdenticalRequests``).
///
/// The first caller starts the operation in a task of its own; later callers with the same key
/// wait for it. Every waiter gets the whole result (or the same error). A caller whose task is
/// cancelled stops waiting at once and throws ``NetworkingError/Kind/cancelled``; the others go on.
/// When the last waiter leaves, the operation's task is cancelled (which cancels its transfer)
/// and the key is free: the next caller starts afresh. A caller arriving after the operation
/// ended starts a new one (nothing is cached).
///
/// Thread-safe: a lock (``SanitizedMutex``) guards the table; continuations resume outside it.
package final class RequestCoalescer<Value: Sendable>: Sendable {
    private struct Flight {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<Value, any Error>]
    }

    private struct State {
        var flights: [CoalescingKey: Flight] = [:]
        var nextID: UInt64 = 0
        /// Operations started, and callers served (joined or started), since creation.
        var started = 0
        var callers = 0
    }

    private let state = SanitizedMutex(State())

    /// Operations started and callers that asked, since creation (the coalescing ratio).
    var counts: (operations: Int, callers: Int) { state.withLock { ($0.started, $0.callers) } }

    /// Callers waiting now, over every key.
    var waiting: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    /// Operations running now.
    var inFlight: Int { state.withLock { $0.flights.count } }

    /// Runs `operation` for `key`, or joins the run already in flight; suspends until it ends or
    /// the calling task is cancelled.
    package func run(
        _ key: CoalescingKey, operation: @escaping @Sendable () async throws(NetworkingError) -> Value
    ) async throws(NetworkingError) -> Value {
        let waiterID = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let startID: UInt64? = state.withLock { state in
                        state.callers += 1
                        if state.flights[key] != nil {
                            state.flights[key]!.waiters[waiterID] = continuation
                            return nil
                        }
                        state.nextID += 1
                        state.started += 1
                        state.flights[key] = Flight(id: state.nextID, task: nil, waiters: [waiterID: continuation])
                        return state.nextID
                    }
                    if let startID {
                        let task = Task {
                            let result: Result<Value, NetworkingError>
                            do throws(NetworkingError) { result = .success(try await operation()) } catch { result = .failure(error) }
                            self.land(key, flight: startID, result)
                        }
                        let orphaned = state.withLock { state -> Bool in
                            guard state.flights[key]?.id == startID else { return true }
                            state.flights[key]!.task = task
                            return false
                        }
                        if orphaned { task.cancel() } // every caller left before the task existed
                    }
                    // Cancelled before the waiter was registered: the handler found nothing to remove.
                    if Task.isCancelled { leave(key, waiter: waiterID) }
                }
            } onCancel: {
                leave(key, waiter: waiterID)
            }
        } catch let error as NetworkingError {
            throw error
        } catch {
            throw NetworkingError(.cancelled, "the coalesced request was cancelled")
        }
    }

    /// A waiter stops waiting (its task was cancelled); the last one cancels the operation.
    private func leave(_ key: CoalescingKey, waiter: UInt64) {
        let (continuation, task) = state.withLock { state -> (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) in
            guard let continuation = state.flights[key]?.waiters.removeValue(forKey: waiter) else { return (nil, nil) }
            guard state.flights[key]!.waiters.isEmpty else { return (continuation, nil) }
            let task = state.flights.removeValue(forKey: key)?.task
            return (continuation, task)
        }
        continuation?.resume(throwing: NetworkingError(.cancelled, "the caller of a coalesced request was cancelled"))
        task?.cancel()
    }

    /// The operation ended: every waiter gets its result.
    private func land(_ key: CoalescingKey, flight: UInt64, _ result: Result<Value, NetworkingError>) {
        let waiters = state.withLock { state -> [CheckedContinuation<Value, any Error>] in
            guard state.flights[key]?.id == flight else { return [] }
            return Array(state.flights.removeValue(forKey: key)!.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result.mapError { $0 as any Error }) }
    }
}
