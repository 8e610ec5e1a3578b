import Foundation

/// mixed-load, measured from the parent: each round runs ours on curl, ours on URLSession, the raw
/// URLSession baseline and a bare libcurl loop (``RawCurlMixedLoad``) in a child process each (rotating which goes first, as the 1 GiB
/// scenarios do); see ``MixedLoad`` for what one child does. The table's row is the busy p99
/// latency; the rest goes in a section below.
enum MixedLoadScenario {
    static func run(server: BenchServer, options: Options, workdir: URL) async throws -> ScenarioResult {
        let scenario = Scenario.mixedLoad
        log("  \(scenario.rawValue): \(options.bigRounds) round(s)")
        let reports = try await MemoryScenarios.runChildren(scenario, server: server, options: options, workdir: workdir) { mode, report in
            guard let figures = report.mixed else { return " \(mode.rawValue): no figures" }
            return String(
                format: "\n    %@: peak RSS %.1f MiB, quiet p50/p99 %.2f/%.2f ms, busy p50/p99 %.2f/%.2f ms (max %.1f) = %.2fx, stream %.0f MB/s, %d busy GETs (%d ended before the stream)",
                mode.rawValue, Double(report.peakRSSKiB) / 1024, figures.quietP50, figures.quietP99,
                figures.busyP50, figures.busyP99, figures.busyMax, figures.p99Ratio,
                figures.streamMegabytesPerSecond, figures.gets, figures.getsDuringStream
            )
        }
        let modes = MemoryScenarios.modes(scenario)
        for mode in modes {
            guard let runs = reports[mode], runs.allSatisfy({ $0.mixed != nil }) else {
                throw BenchmarkError("mixed-load child \(mode.rawValue) reported no figures")
            }
        }

        var result = ScenarioResult(scenario: scenario, unit: "ms", lowerIsBetter: true)
        let labels: [ChildSpec.Mode: String] = [
            .ours: "curl transport: stream(for:) + data(for:) GETs on one manager; busy p99",
            .oursURLSession: "URLSession transport: the same; busy p99",
            .baseline: "raw delegate session counting the stream + URLSession.data(for:) GETs on it; busy p99",
            .rawCurl: "one bare libcurl loop on one thread: the stream (counting) + the GETs on a reused handle; busy p99",
        ]
        for mode in modes {
            let runs = reports[mode] ?? []
            let figures = runs.compactMap(\.mixed)
            guard !figures.isEmpty else { continue }
            result.contenders.append(Contender(
                key: mode.rawValue, label: labels[mode] ?? mode.rawValue,
                value: Measure.median(figures.map(\.busyP99)), samples: figures.map(\.busyP99),
                peakRSSMiB: Double(runs.map(\.peakRSSKiB).max() ?? 0) / 1024
            ))
        }

        func figures(_ prefix: String, _ reports: [ChildReport]) -> [(key: String, samples: [Double])] {
            let figures = reports.compactMap(\.mixed)
            return [
                ("\(prefix)_peak_rss_mib", reports.map { Double($0.peakRSSKiB) / 1024 }),
                ("\(prefix)_quiet_p50_ms", figures.map(\.quietP50)),
                ("\(prefix)_quiet_p99_ms", figures.map(\.quietP99)),
                ("\(prefix)_busy_p50_ms", figures.map(\.busyP50)),
                ("\(prefix)_busy_p99_ms", figures.map(\.busyP99)),
                ("\(prefix)_busy_max_ms", figures.map(\.busyMax)),
                ("\(prefix)_busy_over_quiet_p99", figures.map(\.p99Ratio)),
                ("\(prefix)_stream_mbps", figures.map(\.streamMegabytesPerSecond)),
                ("\(prefix)_busy_gets", figures.map { Double($0.gets) }),
            ]
        }
        result.roundFigures = modes.flatMap { mode in
            figures(mode.rawValue.replacingOccurrences(of: "-", with: "_"), reports[mode] ?? [])
        }

        // The latency target compares each child's busy p99 with its own quiet p99 (same process,
        // minutes apart at most), then takes the median over rounds; peak RSS is the worst round.
        result.addRSSTarget(ContenderKey.ours, atMost: 64)
        if let oursFigures = reports[.ours]?.compactMap(\.mixed), !oursFigures.isEmpty {
            let ratio = Measure.median(oursFigures.map(\.p99Ratio))
            result.targets.append(Target(text: "ours (curl) busy p99 <= 3x quiet p99", measured: Format.ratio(ratio), holds: ratio <= 3))
        }
        result.addRSSTarget(ContenderKey.oursURLSession, atMost: 64, urlSessionEra: true)
        if let figures = reports[.oursURLSession]?.compactMap(\.mixed), !figures.isEmpty {
            let ratio = Measure.median(figures.map(\.p99Ratio))
            result.targets.append(Target(
                text: "ours (URLSession) busy p99 <= 3x quiet p99", measured: Format.ratio(ratio), holds: ratio <= 3, urlSessionEra: true
            ))
        }

        func line(_ name: String, _ reports: [ChildReport]) -> String {
            let figures = reports.compactMap(\.mixed)
            func median(_ values: [Double]) -> String { Format.number(Measure.median(values)) }
            return "  " + [
                Format.pad(name, 15),
                Format.padLeft(String(format: "%.1f", Double(reports.map(\.peakRSSKiB).max() ?? 0) / 1024), 8),
                Format.padLeft(median(figures.map(\.quietP50)), 9), Format.padLeft(median(figures.map(\.quietP99)), 9),
                Format.padLeft(median(figures.map(\.busyP50)), 9), Format.padLeft(median(figures.map(\.busyP99)), 9),
                Format.padLeft(Format.ratio(Measure.median(figures.map(\.p99Ratio))), 10),
                Format.padLeft(median(figures.map(\.streamMegabytesPerSecond)), 8),
                Format.padLeft(figures.map { String($0.gets) }.joined(separator: ","), 10),
            ].joined(separator: " ")
        }
        result.notes = [
            "mixed-load: \(MixedLoad.getCount) sequential GET /bytes/\(BenchServer.smallBytes) alone (quiet), then up to \(MixedLoad.getCount) more on the same session "
                + "while it streams \(options.bigBytes >> 20) MiB read at once (busy; none start after the stream's end); "
                + "medians over \(options.bigRounds) round(s), peak RSS the worst round:",
            "  " + [
                Format.pad("", 15), Format.padLeft("RSS MiB", 8), Format.padLeft("quiet p50", 9), Format.padLeft("quiet p99", 9),
                Format.padLeft("busy p50", 9), Format.padLeft("busy p99", 9), Format.padLeft("busy/quiet", 10),
                Format.padLeft("MB/s", 8), Format.padLeft("busy GETs", 10),
            ].joined(separator: " "),
        ] + modes.map { line($0.rawValue, reports[$0] ?? []) } + [
            "  (latencies in ms; busy/quiet is p99 over p99 per round; busy GETs: made while the stream ran, per round — "
                + "under 300 means the stream ended first, and under 100 makes the busy p99 their maximum)",
        ]
        return result
    }
}
