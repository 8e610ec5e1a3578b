import Foundation
import Synchronization

/// Counts the events one activity reader lost to its full buffer.
final class ActivityDropCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// The readers of ``SessionManager/transferActivity(bufferingNewest:)``: continuations behind a lock
/// (so `deinit` can end them), and an atomic count so that, with no reader, the manager builds no
/// event at all (``isObserved`` is one relaxed load).
final class ActivityObservers: Sendable {
    typealias Continuation = AsyncStream<TransferActivity>.Continuation
    private struct Reader: Sendable {
        let continuation: Continuation
        let drops: ActivityDropCounter
    }

    private let state = SanitizedMutex<(next: UInt64, readers: [UInt64: Reader])>((0, [:]))
    private let count = Atomic<Int>(0)

    /// Whether anyone reads: checked before building any event.
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    /// Registers a reader; returns the key that ``remove(_:)`` takes.
    func add(_ continuation: Continuation, drops: ActivityDropCounter) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.readers[state.next] = Reader(continuation: continuation, drops: drops)
            count.store(state.readers.count, ordering: .relaxed)
            return state.next
        }
    }

    /// Forgets a reader that went away.
    func remove(_ key: UInt64) {
        state.withLock { state in
            state.readers[key] = nil
            count.store(state.readers.count, ordering: .relaxed)
        }
    }

    /// Hands `event` to every reader without waiting; a full buffer drops its oldest, counted.
    func broadcast(_ event: TransferActivity) {
        guard isObserved else { return }
        for reader in state.withLock({ Array($0.readers.values) }) {
            if case .dropped = reader.continuation.yield(event) { reader.drops.add() }
        }
    }

    /// Yields ``TransferActivity/invalidated(_:)`` to every reader and ends every stream.
    func finishAll(_ error: NetworkingError?) {
        let all = state.withLock { state in
            defer { state.readers.removeAll(); count.store(0, ordering: .relaxed) }
            return Array(state.readers.values)
        }
        for reader in all {
            if case .dropped = reader.continuation.yield(.invalidated(error)) { reader.drops.add() }
            reader.continuation.finish()
        }
    }
}
