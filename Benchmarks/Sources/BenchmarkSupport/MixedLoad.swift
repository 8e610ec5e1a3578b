import Foundation
import Synchronization

/// mixed-load: one client streams a big body, consumed at once, while the same client makes
/// sequential small GETs. Measured in a child process per contender (its own `VmHWM`):
///
/// 1. warm-up, then the quiet baseline: ``getCount`` sequential small GETs with nothing else
///    running, each latency recorded;
/// 2. on the same client, the stream starts (a task reading every chunk as it arrives) and up to
///    ``getCount`` sequential small GETs run meanwhile, each latency recorded. No GET starts once
///    the stream has ended: a GET that starts after it is a quiet one again, and would only dilute
///    the busy figures (one GET stuck behind the stream for seconds, then 290 fast ones, has a
///    "p99" of a few ms). So when the stream ends first there are fewer busy samples
///    (``MixedLoadFigures/gets``), and with fewer than 100 the p99 is their maximum;
/// 3. the stream is awaited to its end; its MB/s runs from the start of the request to the last byte.
package enum MixedLoad {
    /// Small GETs of the quiet phase, and the most of the busy phase.
    package static let getCount = 300
    /// Unmeasured GETs first (open the connection, fault in code paths).
    package static let warmUpCount = 20

    /// What the sampler of `benchmarks --trace mixed-load` reads while the child flow runs.
    package final class Progress: Sendable {
        package let consumedBytes = Atomic<Int>(0)
        package let getsDone = Atomic<Int>(0)
        /// The latest GET's latency, µs.
        package let lastLatency = Atomic<Int>(0)
        /// The slowest GET of the current phase, µs.
        package let phaseMaxLatency = Atomic<Int>(0)
        /// 0 warm-up, 1 quiet, 2 busy, 3 draining the stream.
        package let phase = Atomic<Int>(0)
        package let streamDone = Atomic<Bool>(false)

        package init() {}

        package func enter(_ phase: Int) {
            self.phase.store(phase, ordering: .relaxed)
            getsDone.store(0, ordering: .relaxed)
            phaseMaxLatency.store(0, ordering: .relaxed)
        }

        package func recordGet(_ seconds: Double) {
            let micros = Int(seconds * 1e6)
            getsDone.add(1, ordering: .relaxed)
            lastLatency.store(micros, ordering: .relaxed)
            phaseMaxLatency.max(micros, ordering: .relaxed)
        }
    }

    /// The three phases: `get` makes one small GET (checking it), `stream` loads the big body and
    /// returns its byte count, which must be `expectedBytes`.
    package static func measure(
        expectedBytes: Int, progress: Progress = Progress(), name: String,
        get: () async throws -> Void, stream: @escaping @Sendable () async throws -> Int
    ) async throws -> MixedLoadFigures {
        func timedGet() async throws -> Double {
            let start = ContinuousClock.now
            try await get()
            let seconds = Measure.seconds(ContinuousClock.now - start)
            progress.recordGet(seconds)
            return seconds * 1e3
        }
        for _ in 0..<warmUpCount { _ = try await timedGet() }

        progress.enter(1)
        var quiet: [Double] = []
        for _ in 0..<getCount { quiet.append(try await timedGet()) }

        progress.enter(2)
        let streamStart = ContinuousClock.now
        let streaming = Task { () throws -> (bytes: Int, seconds: Double) in
            defer { progress.streamDone.store(true, ordering: .relaxed) }
            let bytes = try await stream()
            return (bytes, Measure.seconds(ContinuousClock.now - streamStart))
        }
        var busy: [Double] = []
        var duringStream = 0
        do {
            repeat {
                busy.append(try await timedGet())
                if !progress.streamDone.load(ordering: .relaxed) { duringStream += 1 }
            } while busy.count < getCount && !progress.streamDone.load(ordering: .relaxed)
        } catch {
            streaming.cancel()
            throw error
        }
        progress.enter(3)
        let (bytes, seconds) = try await streaming.value
        guard bytes == expectedBytes else {
            throw BenchmarkError("mixed-load \(name): \(bytes) of \(expectedBytes) bytes")
        }
        return MixedLoadFigures(quiet: quiet, busy: busy, getsDuringStream: duringStream, bytes: bytes, streamSeconds: seconds)
    }
}

/// One contender's mixed-load figures from one child process (latencies in ms).
package struct MixedLoadFigures: Codable, Sendable {
    package var quietP50: Double
    package var quietP99: Double
    package var busyP50: Double
    package var busyP99: Double
    package var busyMax: Double
    /// Busy GETs made: ``MixedLoad/getCount``, or fewer when the stream ended first.
    package var gets: Int
    /// Busy GETs that also ended before the stream did (the last one may end after it).
    package var getsDuringStream: Int
    package var streamSeconds: Double
    package var streamMegabytesPerSecond: Double

    /// From the quiet and busy latencies (ms) and the stream's bytes and seconds.
    package init(quiet: [Double], busy: [Double], getsDuringStream: Int, bytes: Int, streamSeconds: Double) {
        quietP50 = Measure.percentile(quiet, 50)
        quietP99 = Measure.percentile(quiet, 99)
        busyP50 = Measure.percentile(busy, 50)
        busyP99 = Measure.percentile(busy, 99)
        busyMax = busy.max() ?? 0
        gets = busy.count
        self.getsDuringStream = getsDuringStream
        self.streamSeconds = streamSeconds
        streamMegabytesPerSecond = Measure.megabytesPerSecond(bytes, seconds: streamSeconds)
    }

    /// Busy p99 / quiet p99: the latency target is ≤ 3.
    package var p99Ratio: Double { busyP99 / max(quietP99, 1e-9) }
}

/// mixed-load's section under the table, the same in every benchmark.
package enum MixedLoadReport {
    /// The section: a sentence on what ran, a header, a row per contender (medians over rounds,
    /// the worst round's peak RSS), a footnote.
    package static func lines(_ contenders: [(name: String, reports: [ChildReport])], bytes: Int, rounds: Int) -> [String] {
        var lines = [
            "mixed-load: \(MixedLoad.getCount) sequential GET /bytes/\(BenchServer.smallBytes) alone (quiet), then up to \(MixedLoad.getCount) "
                + "more on the same client while it streams \(bytes >> 20) MiB read at once (busy; none start after the stream's end); "
                + "medians over \(rounds) round(s), peak RSS the worst round:",
            "  " + [
                Format.pad("", 16), Format.padLeft("RSS MiB", 8), Format.padLeft("quiet p50", 9), Format.padLeft("quiet p99", 9),
                Format.padLeft("busy p50", 9), Format.padLeft("busy p99", 9), Format.padLeft("busy/quiet", 10),
                Format.padLeft("MB/s", 8), Format.padLeft("busy GETs", 10),
            ].joined(separator: " "),
        ]
        for (name, reports) in contenders where !reports.mixed.isEmpty {
            let figures = reports.mixed
            func median(_ path: KeyPath<MixedLoadFigures, Double>) -> Double { Measure.median(figures.map { $0[keyPath: path] }) }
            lines.append("  " + [
                Format.pad(name, 16), Format.padLeft(Format.mebibytes(reports.peakRSSMiB), 8),
                Format.padLeft(Format.number(median(\.quietP50)), 9), Format.padLeft(Format.number(median(\.quietP99)), 9),
                Format.padLeft(Format.number(median(\.busyP50)), 9), Format.padLeft(Format.number(median(\.busyP99)), 9),
                Format.padLeft(Format.ratio(median(\.p99Ratio)), 10), Format.padLeft(Format.number(median(\.streamMegabytesPerSecond)), 8),
                Format.padLeft(figures.map { String($0.gets) }.joined(separator: ","), 10),
            ].joined(separator: " "))
        }
        lines.append("  (latencies in ms; busy/quiet is p99 over p99 per round; busy GETs: made while the stream ran, per round — "
            + "under 300 means the stream ended first, and under 100 makes the busy p99 their maximum)")
        return lines
    }

    /// A round's progress fragment for one child.
    package static func progress(_ name: String, _ report: ChildReport) -> String {
        guard let figures = report.mixed else { return " \(name): no figures" }
        return String(
            format: "\n    %@: peak RSS %.1f MiB, quiet p50/p99 %.2f/%.2f ms, busy p50/p99 %.2f/%.2f ms (max %.1f) = %.2fx, stream %.0f MB/s, %d busy GETs (%d ended before the stream)",
            name, Double(report.peakRSSKiB) / 1024, figures.quietP50, figures.quietP99,
            figures.busyP50, figures.busyP99, figures.busyMax, figures.p99Ratio,
            figures.streamMegabytesPerSecond, figures.gets, figures.getsDuringStream
        )
    }

    /// The JSON figures of one contender's rounds, medians (`busy_gets` per round).
    package static func json(_ reports: [ChildReport]) -> [String: Any] {
        let figures = reports.mixed
        func median(_ path: KeyPath<MixedLoadFigures, Double>) -> Double {
            Format.rounded(Measure.median(figures.map { $0[keyPath: path] }))
        }
        return [
            "peak_rss_mib": Format.rounded(reports.peakRSSMiB),
            "quiet_p50_ms": median(\.quietP50), "quiet_p99_ms": median(\.quietP99),
            "busy_p50_ms": median(\.busyP50), "busy_p99_ms": median(\.busyP99),
            "busy_max_ms": median(\.busyMax), "busy_over_quiet_p99": median(\.p99Ratio),
            "stream_mbps": median(\.streamMegabytesPerSecond), "busy_gets": figures.map(\.gets),
        ]
    }
}
