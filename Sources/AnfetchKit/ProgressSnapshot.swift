import Foundation

/// What the display shows at one moment: the active transfers and the totals. A plain value, so
/// the renderer is a pure function of it.
public struct ProgressSnapshot: Sendable, Equatable {
    /// One running download.
    public struct Transfer: Sendable, Equatable {
        /// The file name.
        public var name: String
        /// Bytes on disk so far (counting bytes kept from an earlier attempt or run).
        public var completedBytes: Int64
        /// The whole size, or `nil` when the server did not say.
        public var expectedBytes: Int64?
        /// Recent rate, or `nil` until there is enough to measure.
        public var bytesPerSecond: Double?
        /// A short remark (`retry 1/3`, `resumed`), or `nil`.
        public var note: String?
        /// No response yet: still connecting or waiting for the server.
        public var connecting: Bool

        /// Creates a transfer line's data.
        public init(
            name: String, completedBytes: Int64, expectedBytes: Int64?, bytesPerSecond: Double?, note: String? = nil,
            connecting: Bool = false
        ) {
            self.connecting = connecting
            self.name = name
            self.completedBytes = completedBytes
            self.expectedBytes = expectedBytes
            self.bytesPerSecond = bytesPerSecond
            self.note = note
        }

        /// `completedBytes / expectedBytes` in 0...1, or `nil` when the size is unknown.
        public var fraction: Double? {
            guard let expectedBytes, expectedBytes > 0 else { return expectedBytes == 0 ? 1 : nil }
            return min(1, max(0, Double(completedBytes) / Double(expectedBytes)))
        }

        /// Seconds left at the current rate, or `nil`.
        public var secondsLeft: Double? {
            guard let expectedBytes, let bytesPerSecond, bytesPerSecond > 0 else { return nil }
            return Double(max(0, expectedBytes - completedBytes)) / bytesPerSecond
        }
    }

    /// The running downloads, in start order.
    public var active: [Transfer]
    /// How many URLs in all.
    public var totalCount: Int
    /// How many finished successfully.
    public var succeededCount: Int
    /// How many failed.
    public var failedCount: Int
    /// Bytes of finished and running downloads.
    public var completedBytes: Int64
    /// The size of everything, when every download has started and said its size; else `nil`.
    public var expectedBytes: Int64?
    /// Rate of the whole run, or `nil`.
    public var bytesPerSecond: Double?
    /// Seconds since the run started.
    public var elapsed: Double

    /// Creates a snapshot.
    public init(
        active: [Transfer], totalCount: Int, succeededCount: Int, failedCount: Int, completedBytes: Int64,
        expectedBytes: Int64?, bytesPerSecond: Double?, elapsed: Double
    ) {
        self.active = active
        self.totalCount = totalCount
        self.succeededCount = succeededCount
        self.failedCount = failedCount
        self.completedBytes = completedBytes
        self.expectedBytes = expectedBytes
        self.bytesPerSecond = bytesPerSecond
        self.elapsed = elapsed
    }

    /// Downloads not started yet.
    public var waitingCount: Int { max(0, totalCount - succeededCount - failedCount - active.count) }
}

/// A byte rate over the last few seconds, from (time, bytes) samples. Pure.
public struct RateMeter: Sendable, Equatable {
    /// How far back samples count, in seconds.
    public var window: Double
    private var samples: [(time: Double, bytes: Int64)] = []

    /// A meter with no sample.
    public init(window: Double = 3) { self.window = window }

    /// Records that `bytes` (a running count) were reached at `time` (seconds).
    public mutating func record(bytes: Int64, at time: Double) {
        if let last = samples.last, bytes < last.bytes { samples.removeAll() }  // restarted from 0
        samples.append((time, bytes))
        // Keep one sample at or before the window's start as the baseline.
        while samples.count > 2 && samples[1].time <= time - window { samples.removeFirst() }
    }

    /// Bytes per second between the baseline and `now`, or `nil` with less than 0.2 s of history.
    public func rate(at now: Double) -> Double? {
        guard let first = samples.first, let last = samples.last, now - first.time >= 0.2 else { return nil }
        return Double(last.bytes - first.bytes) / (now - first.time)
    }

    public static func == (lhs: RateMeter, rhs: RateMeter) -> Bool {
        lhs.window == rhs.window && lhs.samples.elementsEqual(rhs.samples) { $0.time == $1.time && $0.bytes == $1.bytes }
    }
}
