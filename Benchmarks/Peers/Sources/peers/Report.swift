import Foundation

/// The human table (stdout) and the JSON file.
enum Report {
    /// Cores, CPU model, memory, kernel, Swift version, load average before the run.
    static func machine() -> String {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
        let kernel = ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let load = ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")
            .split(separator: " ").prefix(3).joined(separator: " ")
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
        return "\(cores) cores (nproc), \(model), \(String(format: "%.0f", memory)) GiB, Linux \(kernel), "
            + "\(swiftVersion()), load average before the run \(load)"
    }

    private static func swiftVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "Swift (version unknown)" }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let range = output.range(of: #"Swift version [0-9.]+"#, options: .regularExpression) else {
            return "Swift (version unknown)"
        }
        return String(output[range])
    }

    /// Contenders compared with AsyncHTTPClient in the ratio columns.
    private static func ours(_ contenders: [Contender]) -> [Contender] {
        contenders.contains(.ahc) ? contenders.filter { $0 != .ahc } : []
    }

    static func table(_ results: [ScenarioResult], contenders: [Contender], header: String) -> String {
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
            row.append("   " + contenders.map { String(format: "%.1f", result.peakRSSMiB($0)) }.joined(separator: " / "))
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
            lines += mixedLines(mixed, contenders: contenders)
        }
        return lines.joined(separator: "\n")
    }

    private static func mixedLines(_ result: ScenarioResult, contenders: [Contender]) -> [String] {
        let bytes = result.size >> 20
        var lines = [
            "",
            "mixed-load: \(MixedLoad.getCount) sequential GET /bytes/\(Endpoints.smallBytes) alone (quiet), then up to \(MixedLoad.getCount) more "
                + "on the same client while it streams \(bytes) MiB read at once (busy; none start after the stream's end):",
            "  " + [
                Format.pad("", 16), Format.padLeft("RSS MiB", 8), Format.padLeft("quiet p50", 9), Format.padLeft("quiet p99", 9),
                Format.padLeft("busy p50", 9), Format.padLeft("busy p99", 9), Format.padLeft("busy/quiet", 10),
                Format.padLeft("MB/s", 7), "  busy GETs",
            ].joined(separator: " "),
        ]
        for contender in contenders {
            let figures = result.reports[contender]?.compactMap(\.mixed) ?? []
            guard !figures.isEmpty else { continue }
            func median(_ path: KeyPath<MixedLoadFigures, Double>) -> String {
                Format.padLeft(Format.number(Measure.median(figures.map { $0[keyPath: path] })), 9)
            }
            lines.append("  " + [
                Format.pad(contender.rawValue, 16),
                Format.padLeft(String(format: "%.1f", result.peakRSSMiB(contender)), 8),
                median(\.quietP50), median(\.quietP99), median(\.busyP50), median(\.busyP99),
                Format.padLeft(Format.ratio(Measure.median(figures.map(\.p99Ratio))), 10),
                Format.padLeft(Format.number(Measure.median(figures.map(\.streamMegabytesPerSecond))), 7),
                "  " + figures.map { String($0.gets) }.joined(separator: ","),
            ].joined(separator: " "))
        }
        lines.append("  (latencies in ms, medians over rounds; busy/quiet is p99 over p99 per round; busy GETs per round —")
        lines.append("  under 300 means the stream ended first, and under 100 makes the busy p99 their maximum)")
        return lines
    }

    /// `{"setup": ..., "scenarios": {"small-seq": {"unit": "req/s", "ours": x, "ahc": y, "ratio_ours_over_ahc": r, ...}}}`.
    static func json(_ results: [ScenarioResult], contenders: [Contender], machine: String, setup: String) throws -> Data {
        var scenarios: [String: Any] = [:]
        for result in results {
            var entry: [String: Any] = ["unit": result.scenario.unit, "lower_is_better": result.scenario.lowerIsBetter]
            for contender in contenders {
                let key = contender.rawValue.replacingOccurrences(of: "-", with: "_")
                let reports = result.reports[contender] ?? []
                entry[key] = Format.rounded(result.median(contender))
                entry["\(key)_samples"] = reports.map { Format.rounded($0.value) }
                entry["\(key)_peak_rss_mib"] = Format.rounded(result.peakRSSMiB(contender))
                if result.scenario.isRequestScenario {
                    entry["\(key)_cpu_us_per_request"] = Format.rounded(result.cpuMicrosPerRequest(contender))
                }
                let figures = reports.compactMap(\.mixed)
                if !figures.isEmpty {
                    func median(_ path: KeyPath<MixedLoadFigures, Double>) -> Double {
                        Format.rounded(Measure.median(figures.map { $0[keyPath: path] }))
                    }
                    entry["\(key)_mixed"] = [
                        "quiet_p50_ms": median(\.quietP50), "quiet_p99_ms": median(\.quietP99),
                        "busy_p50_ms": median(\.busyP50), "busy_p99_ms": median(\.busyP99),
                        "busy_max_ms": median(\.busyMax), "busy_over_quiet_p99": median(\.p99Ratio),
                        "stream_mbps": median(\.streamMegabytesPerSecond), "busy_gets": figures.map(\.gets),
                    ] as [String: Any]
                }
            }
            for contender in ours(contenders) {
                let key = contender.rawValue.replacingOccurrences(of: "-", with: "_")
                entry["ratio_\(key)_over_ahc"] = Format.rounded(result.ratio(contender, over: .ahc))
            }
            scenarios[result.scenario.rawValue] = entry
        }
        let document: [String: Any] = ["machine": machine, "setup": setup, "scenarios": scenarios]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    }
}
