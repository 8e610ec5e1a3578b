import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// batch-1000: 1,000 small GETs as one batch of width 16, results in input order, in seconds.
///
/// Ours is the Batch API, `SessionManager.data(for: requests, width: 16)`. The baseline is the
/// hand-written equivalent over raw URLSession with the same configuration: a sliding-window
/// `TaskGroup` of `URLSession.data(for:)` storing each result at its index. A third contender, the
/// same hand-written TaskGroup over `SessionManager.data(for:)`, separates the Batch layer's cost
/// from the per-request cost.
enum BatchScenario {
    static let width = 16

    static func run(server: BenchServer, options: Options) async throws -> ScenarioResult {
        let count = options.batchCount
        let requests = Array(repeating: URLRequest(url: server.smallURL), count: count)
        let expected = BenchServer.smallBytes
        let manager = SessionManager()
        let session = URLSession(configuration: Configurations.tuned())
        defer { session.invalidateAndCancel() }

        let ours = Variant(name: "ours") {
            try await Measure.time {
                let results = try await manager.data(for: requests, width: width)
                try check(results.map { ($0.0.count, $0.1.statusCode) }, expected: expected)
            }
        }
        let raw = Variant(name: "raw-taskgroup") {
            try await Measure.time {
                let results = try await handWrittenBatch(requests) { request in
                    let (body, response) = try await session.data(for: request)
                    return (body.count, (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
                try check(results, expected: expected)
            }
        }
        let oursByHand = Variant(name: "ours-taskgroup") {
            try await Measure.time {
                let results = try await handWrittenBatch(requests) { request in
                    let (body, response) = try await manager.data(for: request)
                    return (body.count, response.statusCode)
                }
                try check(results, expected: expected)
            }
        }
        let variants = [ours, raw, oursByHand].filter { options.variants?.contains($0.name) ?? true }
        for variant in variants { _ = try await variant.measure() } // warm-up round, not counted
        let (samples, cpu) = try await alternate(.batch1000, variants, rounds: options.rounds, unit: "s")
        await manager.invalidateAndCancel()

        func median(_ name: String) -> Double { Measure.median(samples[name] ?? [0]) }
        var result = ScenarioResult(
            scenario: .batch1000, unit: "s", lowerIsBetter: true,
            ours: median("ours"), baseline: median("raw-taskgroup"),
            baselineLabel: "hand-written TaskGroup (width \(width)) over URLSession.data(for:), same configuration"
        )
        result.cpuPerRequest = variants.compactMap { variant in
            cpu[variant.name].map { (variant.name, Measure.median($0) * 1e6 / Double(count)) }
        }
        result.oursSamples = samples["ours"] ?? []
        result.baselineSamples = samples["raw-taskgroup"] ?? []
        let byHand = median("ours-taskgroup")
        result.extras = [
            .init(key: "ours_taskgroup", label: "hand-written TaskGroup over SessionManager.data(for:)", value: byHand, ratio: result.ratio(against: byHand)),
        ]
        result.target = "ours >= 0.95 x hand-written TaskGroup"
        result.targetMet = result.ratio >= 0.95
        return result
    }

    /// A sliding window of `width` child tasks; results stored at their request's index.
    static func handWrittenBatch(
        _ requests: [URLRequest], _ load: @escaping @Sendable (URLRequest) async throws -> (Int, Int)
    ) async throws -> [(Int, Int)] {
        try await withThrowingTaskGroup(of: (Int, (Int, Int)).self) { group in
            var results = [(Int, Int)](repeating: (0, 0), count: requests.count)
            var next = 0
            func add() {
                let index = next
                let request = requests[index]
                group.addTask { (index, try await load(request)) }
                next += 1
            }
            while next < min(width, requests.count) { add() }
            while let (index, result) = try await group.next() {
                results[index] = result
                if next < requests.count { add() }
            }
            return results
        }
    }

    private static func check(_ results: [(Int, Int)], expected: Int) throws {
        for (bytes, status) in results where bytes != expected || status != 200 {
            throw BenchmarkError("batch member: status \(status), \(bytes) bytes")
        }
    }
}
