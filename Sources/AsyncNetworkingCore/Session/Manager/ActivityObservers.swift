import Foundation
import Synchronization

/// Counts the events one activity reader lost to its full buffer.
final class ActivityDropCounter: Sendable {
    private let count = Atomic<Int>(0)
    func add() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// The readers of ``SessionManager/transferActivity(bufferingNewest:includingData:)``: continuations behind a lock
/// (so `deinit` can end them), and an atomic count so that, with no reader, the manager builds no
/// event at all (``isObserved`` is one relaxed load).
final class ActivityObservers: Sendable {
    typealias Continuation = AsyncStream<TransferActivity>.Continuation
    private struct Reader: Sendable {
        let continuation: Continuation
        let drops: ActivityDropCounter
        /// Whether it asked for ``TransferActivity/data(_:_:)`` events.
        let includesData: Bool
    }

    private let state = SanitizedMutex<(next: UInt64, readers: [UInt64: Reader])>((0, [:]))
    private let count = Atomic<Int>(0)
    private let dataCount = Atomic<Int>(0)

    /// Whether anyone reads: checked before building any event.
    var isObserved: Bool { count.load(ordering: .relaxed) > 0 }

    /// Whether a reader asked for body data: checked before handing a chunk over, so nothing is
    /// paid for data events when nobody asked.
    var wantsData: Bool { dataCount.load(ordering: .relaxed) > 0 }

    /// Registers a reader; returns the key that ``remove(_:)`` takes.
    func add(_ continuation: Continuation, drops: ActivityDropCounter, includesData: Bool = false) -> UInt64 {
        state.withLock { state in
            state.next += 1
            state.readers[state.next] = Reader(continuation: continuation, drops: drops, includesData: includesData)
            storeCounts(state.readers)
            return state.next
        }
    }

    /// Forgets a reader that went away.
    func remove(_ key: UInt64) {
        state.withLock { state in
            state.readers[key] = nil
            storeCounts(state.readers)
        }
    }

    private func storeCounts(_ readers: [UInt64: Reader]) {
        count.store(readers.count, ordering: .relaxed)
        dataCount.store(readers.values.filter(\.includesData).count, ordering: .relaxed)
    }

    /// Hands a body chunk to the readers that asked for data, without waiting.
    func broadcastData(_ id: TransferID, _ data: Data) {
        guard wantsData else { return }
        for reader in state.withLock({ $0.readers.values.filter(\.includesData) }) {
            if case .dropped = reader.continuation.yield(.data(id, data)) { reader.drops.add() }
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
            defer { state.readers.removeAll(); count.store(0, ordering: .relaxed); dataCount.store(0, ordering: .relaxed) }
            return Array(state.readers.values)
        }
        for reader in all {
            if case .dropped = reader.continuation.yield(.invalidated(error)) { reader.drops.add() }
            reader.continuation.finish()
        }
    }
}
