import Foundation
import Synchronization

/// mixed-load, in one child process per contender, on one client (as in the root benchmark):
///
/// 1. 20 unmeasured GETs, then the quiet baseline: 300 sequential small GETs, each timed;
/// 2. the client starts streaming the big body (a task reading every chunk as it arrives) and up to
///    300 sequential small GETs run beside it on the same client, each timed. None starts once the
///    stream has ended (it would be a quiet GET again), so a fast stream gives fewer busy samples
///    (``MixedLoadFigures/gets``), and with fewer than 100 the p99 is their maximum;
/// 3. the stream is awaited to its end; its MB/s runs from the request to the last byte.
enum MixedLoad {
    static let getCount = 300
    static let warmUpCount = 20

    static func run(client: PeerClient, endpoints: Endpoints, bytes expected: Int) async throws -> MixedLoadFigures {
        func get() async throws -> Double {
            let start = ContinuousClock.now
            try await client.get(endpoints)
            return Measure.seconds(ContinuousClock.now - start) * 1e3
        }
        for _ in 0..<warmUpCount { _ = try await get() }
        var quiet: [Double] = []
        for _ in 0..<getCount { quiet.append(try await get()) }

        let done = Flag()
        let streamStart = ContinuousClock.now
        let streaming = Task { () throws -> (bytes: Int, seconds: Double) in
            defer { done.set() }
            let bytes = try await client.stream(endpoints, events: false)
            return (bytes, Measure.seconds(ContinuousClock.now - streamStart))
        }
        var busy: [Double] = []
        var duringStream = 0
        do {
            repeat {
                busy.append(try await get())
                if !done.isSet { duringStream += 1 }
            } while busy.count < getCount && !done.isSet
        } catch {
            streaming.cancel()
            throw error
        }
        let (bytes, seconds) = try await streaming.value
        guard bytes == expected else { throw BenchmarkError("mixed-load: \(bytes) of \(expected) bytes") }
        return MixedLoadFigures(
            quietP50: Measure.percentile(quiet, 50), quietP99: Measure.percentile(quiet, 99),
            busyP50: Measure.percentile(busy, 50), busyP99: Measure.percentile(busy, 99),
            busyMax: busy.max() ?? 0, gets: busy.count, getsDuringStream: duringStream,
            streamMegabytesPerSecond: Measure.megabytesPerSecond(bytes, seconds: seconds)
        )
    }

    /// Set once the stream has ended.
    private final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func set() { value.store(true, ordering: .releasing) }
        var isSet: Bool { value.load(ordering: .acquiring) }
    }
}

/// One contender's mixed-load figures from one child process (latencies in ms).
struct MixedLoadFigures: Codable, Sendable {
    var quietP50: Double
    var quietP99: Double
    var busyP50: Double
    var busyP99: Double
    var busyMax: Double
    /// Busy GETs made: 300, or fewer when the stream ended first.
    var gets: Int
    /// Busy GETs that also ended before the stream did.
    var getsDuringStream: Int
    var streamMegabytesPerSecond: Double

    /// Busy p99 / quiet p99 (the target for the library: ≤ 3).
    var p99Ratio: Double { busyP99 / max(quietP99, 1e-9) }
}
