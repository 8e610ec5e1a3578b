import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// batch-1000: 1,000 small GETs as one batch of width 16, results in input order, in seconds.
///
/// Ours is the Batch API, `SessionManager.data(for: requests, width: 16)`, on the curl transport
/// (`ours`) and on the URLSession transport (`ours-urlsession`). `raw-urlsession` is the
/// hand-written equivalent over raw URLSession with the library's configuration: a sliding-window
/// `TaskGroup` of `URLSession.data(for:)` storing each result at its index. `raw-curl` is the bare
/// libcurl loop with 16 easy handles (``RawCurlClient``). `ours-taskgroup`, the same hand-written
/// TaskGroup over `SessionManager(transport: .curl).data(for:)`, separates the Batch layer's cost
/// from the per-request cost.
///
/// A sample repeats the batch until ``Options/minimumSampleSeconds`` have passed and reports the
/// mean seconds per batch.
enum BatchScenario {
    static let width = 16
    static let defaultVariants: Set<String> = [
        ContenderKey.ours, ContenderKey.oursURLSession, ContenderKey.rawURLSession, ContenderKey.rawCurl, "ours-taskgroup",
    ]

    static func run(server: BenchServer, options: Options) async throws -> ScenarioResult {
        let count = options.batchCount
        let requests = Array(repeating: URLRequest(url: server.smallURL), count: count)
        let expected = BenchServer.smallBytes
        let manager = SessionManager(transport: .curl)
        let managerURLSession = SessionManager(transport: .urlSession)
        let session = URLSession(configuration: Configurations.tuned())
        defer { session.invalidateAndCancel() }
        let rawCurl = try RawCurlClient(url: server.smallURL, width: width)
        let minimum = options.minimumSampleSeconds

        func variant(_ name: String, _ batch: @escaping @Sendable () async throws -> Void) -> Variant {
            Variant(name: name) {
                let (seconds, passes) = try await timedPasses(minimumSeconds: minimum, batch)
                return Sample(value: seconds / Double(passes), requests: count * passes)
            }
        }
        let all = [
            variant(ContenderKey.ours) {
                let results = try await manager.data(for: requests, width: width)
                try check(results.map { ($0.0.count, $0.1.statusCode) }, expected: expected)
            },
            variant(ContenderKey.oursURLSession) {
                let results = try await managerURLSession.data(for: requests, width: width)
                try check(results.map { ($0.0.count, $0.1.statusCode) }, expected: expected)
            },
            variant(ContenderKey.rawURLSession) {
                let results = try await handWrittenBatch(requests) { request in
                    let (body, response) = try await session.data(for: request)
                    return (body.count, (response as? HTTPURLResponse)?.statusCode ?? 0)
                }
                try check(results, expected: expected)
            },
            variant(ContenderKey.rawCurl) {
                try await rawCurl.run(count: count, expectedBytes: expected)
            },
            variant("ours-taskgroup") {
                let results = try await handWrittenBatch(requests) { request in
                    let (body, response) = try await manager.data(for: request)
                    return (body.count, response.statusCode)
                }
                try check(results, expected: expected)
            },
        ]
        let wanted = options.variants ?? defaultVariants
        let variants = all.filter { wanted.contains($0.name) }
        for variant in variants { _ = try await variant.measure() } // warm-up round, not counted
        let (samples, cpu) = try await alternate(Scenario.batch1000.rawValue, variants, rounds: options.rounds, unit: "s")
        await manager.invalidateAndCancel()
        await managerURLSession.invalidateAndCancel()

        var result = ScenarioResult(scenario: .batch1000, unit: "s", lowerIsBetter: true)
        result.addContenders(
            call: "data(for: requests, width: \(width))", rawURLSession: "hand-written TaskGroup (width \(width)) over URLSession.data(for:)",
            width: width, samples: samples, cpu: cpu
        )
        if let byHand = samples["ours-taskgroup"].map(Measure.median) {
            result.extras = [
                .init(key: "ours_taskgroup", label: "hand-written TaskGroup over SessionManager(transport: .curl).data(for:)",
                      value: byHand, ratio: result.value(ContenderKey.ours).map { byHand / $0 }),
            ]
            result.extraCPU = cpu["ours-taskgroup"].map { [("ours-taskgroup", Measure.median($0) * 1e6)] } ?? []
        }
        result.addRatioTarget("ours (curl) >= 0.5x raw libcurl", ContenderKey.ours, over: ContenderKey.rawCurl, atLeast: 0.5)
        result.addRatioTarget(
            "ours (URLSession) >= 0.95x hand-written TaskGroup over URLSession", ContenderKey.oursURLSession,
            over: ContenderKey.rawURLSession, atLeast: 0.95, urlSessionEra: true
        )
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
