import Foundation
import Synchronization

/// The readers of ``SessionManager/sessionEvents(bufferingNewest:)``: their continuations behind a
/// lock, so the manager's `deinit` (which cannot touch actor state) can still end every stream.
/// Events are yielded on the manager's executor; the lock is held only to copy the list.
final class SessionObservers: Sendable {
    typealias Continuation = AsyncStream<SessionEvent>.Continuation

    private let state = SanitizedMutex<(next: UInt64, continuations: [UInt64: Continuation])>((0, [:]))
    /// How many are registered: lets ``broadcast(_:)`` skip the lock when nobody listens.
    private let count = Atomic<Int>(0)

    /// Registers a reader; returns the key that ``remove(_:)`` takes.
    func add(_ continuation: Continuation) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.continuations[state.next] = continuation
            count.store(state.continuations.count, ordering: .relaxed)
            return state.next
        }
    }

    /// Forgets a reader that went away.
    func remove(_ key: UInt64) {
        state.withLock { state in
            state.continuations[key] = nil
            count.store(state.continuations.count, ordering: .relaxed)
        }
    }

    /// Yields `event` to every reader.
    func broadcast(_ event: SessionEvent) {
        guard count.load(ordering: .relaxed) > 0 else { return }
        for continuation in state.withLock({ Array($0.continuations.values) }) { continuation.yield(event) }
    }

    /// Yields ``SessionEvent/invalidated`` to every reader and ends every stream.
    func finishAll() {
        let all = state.withLock { state in
            defer { state.continuations.removeAll(); count.store(0, ordering: .relaxed) }
            return Array(state.continuations.values)
        }
        for continuation in all {
            continuation.yield(.invalidated)
            continuation.finish()
        }
    }
}
