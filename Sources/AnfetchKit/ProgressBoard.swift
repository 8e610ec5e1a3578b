import Foundation

/// The progress of every download of a run: a pure state (times are seconds passed in), so tests
/// drive it without a clock. ``ProgressBoard`` wraps it in a lock for the running transfers.
public struct BoardState: Sendable {
    enum Phase: Sendable { case waiting, running, succeeded, failed }

    struct Entry: Sendable {
        var name = ""
        var phase = Phase.waiting
        var completed: Int64 = 0
        var expected: Int64?
        var meter = RateMeter()
        var note: String?
        var startOrder = 0
        var connecting = true
    }

    private var entries: [Entry]
    private var totalMeter = RateMeter()
    /// Bytes moved over the network in this run (bytes kept from an earlier run not counted).
    private var transferred: Int64 = 0
    private var nextStartOrder = 0

    /// A board of `count` waiting downloads.
    public init(count: Int) {
        entries = Array(repeating: Entry(), count: count)
    }

    /// Download `index` started (or restarted for a retry) as `name`, with `bytesOnDisk` already there.
    public mutating func start(_ index: Int, name: String, bytesOnDisk: Int64 = 0, note: String? = nil, at time: Double) {
        guard entries.indices.contains(index) else { return }
        if entries[index].phase == .waiting {
            entries[index].startOrder = nextStartOrder
            nextStartOrder += 1
        }
        entries[index].name = name
        entries[index].phase = .running
        entries[index].completed = bytesOnDisk
        entries[index].meter = RateMeter()
        entries[index].meter.record(bytes: bytesOnDisk, at: time)
        entries[index].note = note
        entries[index].connecting = true
        totalMeter.record(bytes: transferred, at: time)
    }

    /// Download `index` has `completed` bytes on disk out of `expected`.
    public mutating func progress(_ index: Int, completed: Int64, expected: Int64?, at time: Double) {
        guard entries.indices.contains(index), entries[index].phase == .running else { return }
        let delta = completed - entries[index].completed
        if delta > 0 { transferred += delta }
        entries[index].completed = completed
        entries[index].expected = expected ?? entries[index].expected
        entries[index].connecting = false
        entries[index].meter.record(bytes: completed, at: time)
        totalMeter.record(bytes: transferred, at: time)
    }

    /// Download `index` received its response head (it is no longer connecting).
    public mutating func responded(_ index: Int) {
        guard entries.indices.contains(index) else { return }
        entries[index].connecting = false
    }

    /// Sets or clears the remark shown after download `index`.
    public mutating func note(_ index: Int, _ note: String?) {
        guard entries.indices.contains(index) else { return }
        entries[index].note = note
    }

    /// Download `index` ended: with its final size when it succeeded.
    public mutating func finish(_ index: Int, succeeded: Bool, bytes: Int64?, name: String? = nil) {
        guard entries.indices.contains(index) else { return }
        entries[index].phase = succeeded ? .succeeded : .failed
        if let bytes {
            entries[index].completed = bytes
            entries[index].expected = bytes
        }
        if let name { entries[index].name = name }
    }

    /// What to show at `time`.
    public func snapshot(at time: Double) -> ProgressSnapshot {
        let running = entries.filter { $0.phase == .running }.sorted { $0.startOrder < $1.startOrder }
        let active = running.map {
            ProgressSnapshot.Transfer(
                name: $0.name, completedBytes: $0.completed, expectedBytes: $0.expected,
                bytesPerSecond: $0.meter.rate(at: time), note: $0.note, connecting: $0.connecting
            )
        }
        let counted = entries.filter { $0.phase != .waiting && $0.phase != .failed }
        // Summed in 128 bits and clamped: an expected size is a server's Content-Length (up to
        // Int64.max each), and two of them must not trap.
        let completed = Int64(clamping: counted.reduce(Int128(0)) { $0 + Int128($1.completed) })
        let allKnown = !entries.contains { $0.phase == .waiting } && !running.contains { $0.expected == nil }
        let expected = allKnown ? Int64(clamping: counted.reduce(Int128(0)) { $0 + Int128($1.expected ?? $1.completed) }) : nil
        return ProgressSnapshot(
            active: active, totalCount: entries.count,
            succeededCount: entries.count { $0.phase == .succeeded }, failedCount: entries.count { $0.phase == .failed },
            completedBytes: completed, expectedBytes: expected, bytesPerSecond: totalMeter.rate(at: time), elapsed: time
        )
    }
}

/// ``BoardState`` shared by the running downloads and the display, behind a lock.
public final class ProgressBoard: Sendable {
    private let state: SanitizedMutex<BoardState>
    private let origin = ContinuousClock.now

    /// A board of `count` waiting downloads; its clock starts now.
    public init(count: Int) {
        state = SanitizedMutex(BoardState(count: count))
    }

    /// Seconds since the board was made.
    public var now: Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// Changes the state (with the current time).
    public func update(_ change: @Sendable (inout BoardState, Double) -> Void) {
        let time = now
        state.withLock { change(&$0, time) }
    }

    /// The current snapshot.
    public func snapshot() -> ProgressSnapshot {
        let time = now
        return state.withLock { $0.snapshot(at: time) }
    }
}
