import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The shape every awaiting call shares (`data(for:)`, uploads, `download(for:to:)`): no `await` on
/// the actor before the transfer starts.
extension SessionManager {
    /// Starts a transfer whose sink resumes the caller, and awaits its result.
    ///
    /// The caller enqueues `start` on the manager's queue — ahead of any callback of the task it
    /// creates — and suspends on a continuation the transfer's sink resumes directly onto the
    /// caller's executor: the same thread hand-offs as URLSession's own `data(for:)`. Cancelling
    /// the calling task cancels the transfer (that cancel is enqueued after `start`, so it always
    /// finds it); the call returns once URLSession has stopped it.
    ///
    /// - Parameters:
    ///   - cleanup: releases what the caller prepared, when the transfer never starts (the calling
    ///     task was already cancelled, or `start` threw). After a start, the sink owns it.
    ///   - start: registers the transfer with a sink that will resume the continuation exactly once.
    nonisolated func awaitTransfer<Value: Sendable>(
        _ request: URLRequest,
        cleanup: @escaping @Sendable () -> Void = {},
        start: @escaping @Sendable (isolated SessionManager, TransferID, UnsafeContinuation<Value, any Error>) throws(NetworkingError) -> Void
    ) async throws(NetworkingError) -> Value {
        if Task.isCancelled {
            cleanup()
            throw NetworkingError(.cancelled, "the calling task was already cancelled", request: request)
        }
        let id = nextTransferID()
        // A cancel can land before `start` has run (even before the cancellation handler below is
        // installed, which then runs the handler at once): the flag tells `start` to cancel what it
        // just registered, so no cancel is ever lost, whichever runs first.
        let cancelled = CancellationFlag()
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Value, any Error>) in
                    perform { manager in
                        do throws(NetworkingError) {
                            try start(manager, id, continuation)
                        } catch {
                            cleanup()
                            continuation.resume(throwing: error)
                            return
                        }
                        if cancelled.isSet {
                            manager.cancelTransfer(id, reason: NetworkingError(.cancelled, "the calling task was cancelled"))
                        }
                    }
                }
            } onCancel: {
                cancelled.set()
                perform { $0.cancelTransfer(id, reason: NetworkingError(.cancelled, "the calling task was cancelled")) }
            }
        } catch {
            throw (error as? NetworkingError) ?? NetworkingError(.transport(.unknown), "\(error)", request: request, underlyingError: error)
        }
    }
}

/// A one-way flag set from a cancellation handler and read on the manager's executor.
final class CancellationFlag: Sendable {
    private let value = Atomic<Bool>(false)

    /// Sets the flag (from any thread).
    func set() { value.store(true, ordering: .sequentiallyConsistent) }

    /// Whether ``set()`` was called.
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
