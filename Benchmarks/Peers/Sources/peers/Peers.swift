import Foundation
import LoopbackServer

/// The parent: starts the server, runs every selected scenario round after round with each
/// contender in a child process of its own (each round starts with a different contender), then
/// prints the table and writes the JSON.
enum Peers {
    @concurrent
    static func main(_ options: Options) async -> Int32 {
        if let child = options.child {
            do {
                try await ChildRunner.run(child)
                return 0
            } catch {
                log("peers child \(child.scenario.rawValue) \(child.contender.rawValue): \(error)")
                return 1
            }
        }
        if let child = options.wsChild {
            do {
                try await WebSocketChild.run(child)
                return 0
            } catch {
                log("peers child \(child.scenario.rawValue) \(child.contender.rawValue): \(error)")
                return 1
            }
        }
        if options.websocket {
            return await WebSocketBench.main(options)
        }
        let started = ContinuousClock.now
        let machine = Report.machine()
        let header = "AsyncNetworking against AsyncHTTPClient 1.37.0 — \(machine)"
        log(header)
        let workdir = FileManager.default.temporaryDirectory.appendingPathComponent("asyncnetworking-peers-\(UUID().uuidString)")
        let server: LoopbackServer?
        let baseURL: URL
        do {
            try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)
            if let url = options.serverURL {
                (server, baseURL) = (nil, url)
            } else {
                let embedded = try LoopbackServer()
                (server, baseURL) = (embedded, embedded.baseURL)
            }
        } catch {
            log("peers: cannot start: \(error)")
            return 1
        }
        defer {
            server?.stop()
            try? FileManager.default.removeItem(at: workdir)
        }
        let setup = (server == nil ? "\(baseURL) (--server)" : "LoopbackServer at \(baseURL)")
            + "; GET /bytes/\(Endpoints.smallBytes): \(options.smallCount) sequential, \(options.concurrentCount) at 16 in flight, "
            + "batch of \(options.batchCount) (width \(Scenario.batch.width)); \(options.bigBytes >> 20) MiB streams; "
            + "\(options.rounds) round(s), a child process per contender and round"
        log(setup)

        var results: [ScenarioResult] = []
        for scenario in Scenario.allCases where options.includes(scenario) {
            log("\(scenario.rawValue)…")
            var result = ScenarioResult(scenario: scenario, size: options.size(of: scenario))
            do {
                for round in 0..<options.rounds {
                    var line = "  round \(round + 1)/\(options.rounds):"
                    for step in 0..<options.contenders.count {
                        let contender = options.contenders[(round + step) % options.contenders.count]
                        let spec = ChildSpec(
                            scenario: scenario, contender: contender, server: baseURL, size: options.size(of: scenario),
                            result: workdir.appendingPathComponent("\(scenario.rawValue)-\(contender.rawValue)-\(round).json")
                        )
                        let report = try await ChildProcess.run(spec)
                        result.reports[contender, default: []].append(report)
                        line += " \(contender.rawValue) \(Format.number(report.value))"
                        if let mixed = report.mixed {
                            line += String(format: " (quiet p99 %.2f, busy p50 %.2f, %d GETs, %.0f MB/s)",
                                           mixed.quietP99, mixed.busyP50, mixed.gets, mixed.streamMegabytesPerSecond)
                        }
                        line += ","
                    }
                    log(String(line.dropLast()) + " \(scenario.unit)")
                }
            } catch {
                log("peers: \(scenario.rawValue) failed: \(error)")
                return 1
            }
            results.append(result)
        }
        let elapsed = Measure.seconds(ContinuousClock.now - started)
        print(Report.table(results, contenders: options.contenders, header: header + "\n" + setup
            + String(format: "\nwhole run: %.0f s", elapsed)))
        if let path = options.jsonPath {
            do {
                try Report.json(results, contenders: options.contenders, machine: machine, setup: setup).write(to: URL(fileURLWithPath: path))
                log("wrote \(path)")
            } catch {
                log("peers: cannot write \(path): \(error)")
                return 1
            }
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
        Measure.median(reports[contender]?.map(\.value) ?? [])
    }

    /// `contender` against `other`, above 1 when `contender` is better (rates: a / b; ms: b / a).
    func ratio(_ contender: Contender, over other: Contender) -> Double {
        let (a, b) = (median(contender), median(other))
        return scenario.lowerIsBetter ? b / a : a / b
    }

    /// Peak RSS of the worst round, MiB.
    func peakRSSMiB(_ contender: Contender) -> Double {
        guard let reports = reports[contender], !reports.isEmpty else { return .nan }
        return Double(reports.map(\.peakRSSKiB).max() ?? 0) / 1024
    }

    /// Median CPU time per request of the child (the client alone), µs.
    func cpuMicrosPerRequest(_ contender: Contender) -> Double {
        Measure.median(reports[contender]?.map { $0.cpuSeconds * 1e6 / Double(size) } ?? [])
    }
}
