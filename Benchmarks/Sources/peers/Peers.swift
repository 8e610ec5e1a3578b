import BenchmarkSupport
import Foundation

/// The parent: starts the server, runs every selected scenario round after round with each
/// contender in a child process of its own (each round starts with a different contender), then
/// prints the table and writes the JSON.
enum Peers {
    @concurrent
    static func main(_ options: Options) async -> Int32 {
        if let child = options.child { return await child.main(ChildRunner.run) }
        if let child = options.wsChild { return await child.main(WebSocketChild.run) }
        if options.websocket {
            return await WebSocketBench.main(options)
        }
        let started = ContinuousClock.now
        let machine = Machine.describe()
        let header = "AsyncNetworking against AsyncHTTPClient 1.37.0 — \(machine)"
        log(header)
        return await withRunServer("peers", prefix: "asyncnetworking-peers", start: { try BenchServer(url: options.serverURL) }) {
            await scenarios(options, server: $0, workdir: $1, machine: machine, header: header, started: started)
        }
    }

    /// Every selected scenario, the table on stdout and the JSON file.
    private static func scenarios(
        _ options: Options, server: BenchServer, workdir: Workdir, machine: String, header: String, started: ContinuousClock.Instant
    ) async -> Int32 {
        let setup = server.description
            + "; GET /bytes/\(BenchServer.smallBytes): \(options.smallCount) sequential, \(options.concurrentCount) at 16 in flight, "
            + "batch of \(options.batchCount) (width \(Scenario.batch1000.width)); \(options.bigBytes >> 20) MiB streams; "
            + "\(options.rounds) round(s), a child process per contender and round"
        log(setup)

        var results: [ScenarioResult] = []
        for scenario in Scenario.peers where options.includes(scenario) {
            log("\(scenario.rawValue)…")
            var result = ScenarioResult(scenario: scenario, size: options.size(of: scenario))
            do {
                try await rotateRounds(options.contenders, rounds: options.rounds, name: scenario.rawValue, unit: scenario.unit) { contender in
                    let report = try await HTTPChildSpec(
                        scenario: scenario, contender: contender, server: server.baseURL.absoluteString, size: options.size(of: scenario),
                        result: workdir.result(scenario.rawValue, contender.rawValue, round: result.reports[contender, default: []].count)
                    ).run()
                    result.reports[contender, default: []].append(report)
                    return " \(contender.rawValue) \(Format.number(report.value))"
                        + (report.mixed.map { String(format: " (quiet p99 %.2f, busy p50 %.2f, %d GETs, %.0f MB/s)",
                                                     $0.quietP99, $0.busyP50, $0.gets, $0.streamMegabytesPerSecond) } ?? "")
                }
            } catch {
                log("peers: \(scenario.rawValue) failed: \(error)")
                return 1
            }
            results.append(result)
        }
        let elapsed = Measure.seconds(ContinuousClock.now - started)
        print(Report.table(results, contenders: options.contenders, rounds: options.rounds, header: header + "\n" + setup
            + String(format: "\nwhole run: %.0f s", elapsed)))
        if let path = options.jsonPath, !Machine.write({
            try Report.json(results, contenders: options.contenders, machine: machine, setup: setup)
        }, to: path, program: "peers") {
            return 1
        }
        return 0
    }
}

/// Every contender's reports for one scenario, in round order.
struct ScenarioResult: Sendable {
    let scenario: Scenario
    /// Requests (or body bytes) of each measurement.
    let size: Int
    var reports: [Contender: [ChildReport]] = [:]

    func median(_ contender: Contender) -> Double {
        (reports[contender] ?? []).medianValue
    }

    /// `contender` against `other`, above 1 when `contender` is better (rates: a / b; ms: b / a).
    func ratio(_ contender: Contender, over other: Contender) -> Double {
        let (a, b) = (median(contender), median(other))
        return scenario.lowerIsBetter ? b / a : a / b
    }

    /// Peak RSS of the worst round, MiB.
    func peakRSSMiB(_ contender: Contender) -> Double {
        (reports[contender] ?? []).peakRSSMiB
    }

    /// Median CPU time per request of the child (the client alone), µs.
    func cpuMicrosPerRequest(_ contender: Contender) -> Double {
        (reports[contender] ?? []).median { $0.cpuSeconds * 1e6 / Double(size) }
    }
}
