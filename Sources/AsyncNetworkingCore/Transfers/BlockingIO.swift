import Foundation
import Dispatch
import Synchronization

/// Runs blocking file work (spooling a body to disk) on a dispatch thread instead of the Swift
/// concurrency pool or the manager's executor, with cooperative cancellation.
enum BlockingIO {
    private final class Flag: Sendable {
        let cancelled = Atomic(false)
    }

    /// Runs `body` on a global dispatch queue and returns its result. Cancelling the calling task
    /// makes `isCancelled` return `true`; `body` is expected to check it between chunks and throw.
    static func run<T: Sendable>(
        _ body: @escaping @Sendable (_ isCancelled: @Sendable () -> Bool) throws(NetworkingError) -> T
    ) async throws(NetworkingError) -> T {
        let flag = Flag()
        let result: Result<T, NetworkingError> = await withTaskCancellationHandler {
            await withUnsafeContinuation { continuation in
                DispatchQueue.global(qos: .utility).async {
                    continuation.resume(returning: Result { () throws(NetworkingError) in
                        try body { flag.cancelled.load(ordering: .relaxed) }
                    })
                }
            }
        } onCancel: {
            flag.cancelled.store(true, ordering: .relaxed)
        }
        return try result.get()
    }
}
