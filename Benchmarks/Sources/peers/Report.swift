import BenchmarkSupport
import Foundation

/// The human table (stdout) and the JSON file.
enum Report {
    /// Contenders compared with AsyncHTTPClient in the ratio columns.
    private static func ours(_ contenders: [Contender]) -> [Contender] {
        contenders.contains(.ahc) ? contenders.filter { $0 != .ahc } : []
    }

    static func table(_ results: [ScenarioResult], contenders: [Contender], rounds: Int, header: String) -> String {
        var lines = [header, ""]
        let ratios = ours(contenders)
        var columns = [Format.pad("scenario", 11), Format.pad("unit", 6)]
        columns += contenders.map { Format.padLeft($0.rawValue, 15) }
        columns += ratios.map { Format.padLeft("\($0.rawValue)/ahc", 19) }
        columns.append("   peak RSS MiB (" + contenders.map(\.rawValue).joined(separator: " / ") + ")")
        lines.append(columns.joined(separator: " "))
        for result in results {
            var row = [Format.pad(result.scenario.rawValue, 11), Format.pad(result.scenario.unit, 6)]
            row += contenders.map { Format.padLeft(Format.number(result.median($0)), 15) }
            row += ratios.map { Format.padLeft(Format.ratio(result.ratio($0, over: .ahc)), 19) }
            row.append("   " + contenders.map { Format.mebibytes(result.peakRSSMiB($0)) }.joined(separator: " / "))
            lines.append(row.joined(separator: " "))
        }
        lines.append("")
        lines.append("Medians over rounds; each contender in a child process of its own, per round. ratio > 1: the first is better")
        lines.append("(req/s and MB/s: a / ahc; mixed-load's busy p99 ms: ahc / a). Peak RSS: VmHWM of the child, worst round.")
        lines.append("mixed-load's row is the busy p99 of small GETs while the same client streams; details below.")
        lines.append("Contenders: ours = SessionManager() (curl transport); ours-urlsession = SessionManager(transport: .urlSession);")
        lines.append("ahc = AsyncHTTPClient 1.37.0, HTTPClient(eventLoopGroupProvider: .singleton), default configuration.")

        let requestResults = results.filter(\.scenario.isRequestScenario)
        if !requestResults.isEmpty {
            lines.append("")
            lines.append("CPU per request, µs (median; the client's child process alone — the server runs in the parent):")
            for result in requestResults {
                let figures = contenders.map { "\($0.rawValue) \(Format.number(result.cpuMicrosPerRequest($0)))" }
                lines.append("  " + Format.pad(result.scenario.rawValue, 11) + " " + figures.joined(separator: ", "))
            }
        }
        if let mixed = results.first(where: { $0.scenario == .mixedLoad }) {
            lines.append("")
            lines += MixedLoadReport.lines(
                contenders.map { ($0.rawValue, mixed.reports[$0] ?? []) }, bytes: mixed.size, rounds: rounds
            )
        }
        return lines.joined(separator: "\n")
    }

    /// `{"setup": ..., "scenarios": {"small-seq": {"unit": "req/s", "ours": x, "ahc": y, "ratio_ours_over_ahc": r, ...}}}`.
    static func json(_ results: [ScenarioResult], contenders: [Contender], machine: String, setup: String) throws -> Data {
        var scenarios: [String: Any] = [:]
        for result in results {
            var entry: [String: Any] = ["unit": result.scenario.unit, "lower_is_better": result.scenario.lowerIsBetter]
            for contender in contenders {
                let key = Format.key(contender.rawValue)
                let reports = result.reports[contender] ?? []
                entry[key] = Format.rounded(result.median(contender))
                entry["\(key)_samples"] = reports.map { Format.rounded($0.value) }
                entry["\(key)_peak_rss_mib"] = Format.rounded(result.peakRSSMiB(contender))
                if result.scenario.isRequestScenario {
                    entry["\(key)_cpu_us_per_request"] = Format.rounded(result.cpuMicrosPerRequest(contender))
                }
                if !reports.mixed.isEmpty {
                    entry["\(key)_mixed"] = MixedLoadReport.json(reports)
                }
            }
            for contender in ours(contenders) {
                let key = Format.key(contender.rawValue)
                entry["ratio_\(key)_over_ahc"] = Format.rounded(result.ratio(contender, over: .ahc))
            }
            scenarios[result.scenario.rawValue] = entry
        }
        let document: [String: Any] = ["machine": machine, "setup": setup, "scenarios": scenarios]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    }
}
