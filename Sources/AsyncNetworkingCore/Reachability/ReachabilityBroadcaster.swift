/// The current status and everyone waiting for the next one: streams, and internal observers
/// (the session manager's connectivity gate). Any thread may publish or subscribe.
///
/// Duplicates are coalesced: a status equal to the current one is not published, so a stream
/// sees each change exactly once. A subscriber's first element is the status at the moment it
/// subscribed, taken under the same lock as publishing, so nothing falls between the two.
final class ReachabilityBroadcaster: Sendable {
    typealias Observer = @Sendable (ReachabilityStatus) -> Bool

    private struct State {
        var status: ReachabilityStatus
        var continuations: [Int: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        var observers: [Int: Observer] = [:]
        var nextKey = 0
        var isFinished = false
    }

    private let state: SanitizedMutex<State>

    init(status: ReachabilityStatus) {
        state = SanitizedMutex(State(status: status))
    }

    var status: ReachabilityStatus { state.withLock { $0.status } }

    var isFinished: Bool { state.withLock { $0.isFinished } }

    /// Stores `status` and hands it to every stream and observer, unless it equals the current
    /// one. Observers run after the status is stored, outside the lock, on the publishing thread;
    /// one that returns `false` is removed.
    func publish(_ status: ReachabilityStatus) {
        let observers: [(Int, Observer)]? = state.withLock { state in
            guard !state.isFinished, state.status != status else { return nil }
            state.status = status
            for continuation in state.continuations.values { continuation.yield(status) }
            return state.observers.map { ($0.key, $0.value) }
        }
        for (key, observer) in observers ?? [] where !observer(status) {
            _ = state.withLock { $0.observers.removeValue(forKey: key) }
        }
    }

    /// A new stream: the current status, then every change, until ``finish()``.
    func stream(bufferingNewest limit: Int) -> AsyncStream<ReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ReachabilityStatus.self, bufferingPolicy: .bufferingNewest(max(1, limit)))
        let key: Int? = state.withLock { state in
            continuation.yield(state.status)
            guard !state.isFinished else { return nil }
            state.nextKey += 1
            state.continuations[state.nextKey] = continuation
            return state.nextKey
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.continuations.removeValue(forKey: key) }
        }
        return stream
    }

    /// Calls `observer` with every change from now on, until it returns `false`.
    @discardableResult
    func addObserver(_ observer: @escaping Observer) -> Int {
        state.withLock { state in
            state.nextKey += 1
            state.observers[state.nextKey] = observer
            return state.nextKey
        }
    }

    func removeObserver(_ key: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: key) }
    }

    /// Ends every stream; the status stays as it was. Observers are called one last time (with
    /// the last status; ``isFinished`` is then true) and removed, so nobody waits for a change
    /// that will never come.
    func finish() {
        let (continuations, observers, status) = state.withLock { state in
            let observers = state.isFinished ? [] : Array(state.observers.values)
            state.isFinished = true
            state.observers = [:]
            defer { state.continuations = [:] }
            return (Array(state.continuations.values), observers, state.status)
        }
        for continuation in continuations { continuation.finish() }
        for observer in observers { _ = observer(status) }
    }
}
