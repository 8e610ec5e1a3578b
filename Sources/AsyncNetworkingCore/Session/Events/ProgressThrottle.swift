/// Decides which progress values of one transfer direction reach the manager-wide activity stream:
/// pure logic, no I/O (the clock is passed in).
///
/// A value is published when it is the first, when it completes the expected total, when it moved
/// by at least ``step(expected:)`` since the last one published, or when it moved at all and
/// ``interval`` passed. ``final(_:)`` publishes whatever the last one missed, so the last event
/// always reports every byte.
struct ProgressThrottle {
    /// The smallest byte step between two events when the total is known.
    static let minimumStep: Int64 = 64 << 10
    /// The byte step when the total is unknown.
    static let unknownStep: Int64 = 1 << 20
    /// A value that moved is published at least this often (slow transfers).
    static let interval: Duration = .seconds(1)
    /// Steps per known total: at most this many events by bytes, plus one per ``interval``.
    static let stepsPerTotal: Int64 = 50

    /// The completed count last published, or `nil` before the first.
    private(set) var lastPublished: Int64?
    private var lastInstant: ContinuousClock.Instant?

    /// 2 % of `expected` (at least ``minimumStep``), or ``unknownStep``.
    static func step(expected: Int64?) -> Int64 {
        guard let expected, expected > 0 else { return unknownStep }
        return max(minimumStep, expected / stepsPerTotal)
    }

    /// Whether to publish `progress` now; records it when so.
    mutating func shouldPublish(_ progress: TransferProgress, now: ContinuousClock.Instant) -> Bool {
        let completed = progress.completedBytes
        let publish: Bool
        if let last = lastPublished {
            let delta = completed - last
            if delta == 0 {
                publish = false
            } else if let expected = progress.expectedBytes, completed == expected {
                publish = true
            } else if abs(delta) >= Self.step(expected: progress.expectedBytes) {
                publish = true
            } else if let lastInstant {
                publish = now - lastInstant >= Self.interval
            } else {
                publish = true
            }
        } else {
            publish = true
        }
        if publish {
            lastPublished = completed
            lastInstant = now
        }
        return publish
    }

    /// Whether the final value still has to be published (it differs from the last published).
    mutating func final(_ progress: TransferProgress) -> Bool {
        guard lastPublished != progress.completedBytes || lastPublished == nil else { return false }
        lastPublished = progress.completedBytes
        return true
    }

    /// Forgets what was published (a new attempt that starts over from byte 0).
    mutating func reset() {
        lastPublished = nil
        lastInstant = nil
    }
}
