import Foundation

/// mixed-load, measured from the parent: each round runs ours and the raw baseline in a child
/// process each (alternating which goes first, as the 1 GiB scenarios do); see ``MixedLoad`` for
/// what one child does. The table's row is the busy p99 latency; the rest goes in a section below.
enum MixedLoadScenario {
    static let target = "peak RSS <= 64 MiB, busy p99 <= 3x quiet p99"

    static func run(server: BenchServer, options: Options, workdir: URL) async throws -> ScenarioResult {
        let scenario = Scenario.mixedLoad
        var reports: [ChildSpec.Mode: [ChildReport]] = [:]
        for round in 0..<options.bigRounds {
            let order: [ChildSpec.Mode] = round % 2 == 0 ? [.ours, .baseline] : [.baseline, .ours]
            log("  \(scenario.rawValue) round \(round + 1)/\(options.bigRounds):")
            for mode in order {
                let spec = ChildSpec(
                    scenario: scenario, mode: mode, server: server.baseURL, bytes: options.bigBytes, workdir: workdir,
                    result: workdir.appendingPathComponent("result-\(scenario.rawValue)-\(mode.rawValue)-\(round).json")
                )
                let report = try await ChildProcess.run(spec)
                guard let figures = report.mixed else { throw BenchmarkError("mixed-load child reported no figures") }
                reports[mode, default: []].append(report)
                log(String(
                    format: "    %@: peak RSS %.1f MiB, quiet p50/p99 %.2f/%.2f ms, busy p50/p99 %.2f/%.2f ms (max %.1f) = %.2fx, stream %.0f MB/s, %d busy GETs (%d ended before the stream)",
                    mode.rawValue, Double(report.peakRSSKiB) / 1024, figures.quietP50, figures.quietP99,
                    figures.busyP50, figures.busyP99, figures.busyMax, figures.p99Ratio,
                    figures.streamMegabytesPerSecond, figures.gets, figures.getsDuringStream
                ))
            }
        }
        let ours = reports[.ours] ?? []
        let baseline = reports[.baseline] ?? []
        let oursFigures = ours.compactMap(\.mixed)
        let baselineFigures = baseline.compactMap(\.mixed)
        let oursPeak = Double(ours.map(\.peakRSSKiB).max() ?? 0) / 1024

        var result = ScenarioResult(
            scenario: scenario, unit: "ms", lowerIsBetter: true,
            ours: Measure.median(oursFigures.map(\.busyP99)),
            baseline: Measure.median(baselineFigures.map(\.busyP99)),
            baselineLabel: "raw delegate session counting the stream + URLSession.data(for:) GETs on it; busy p99"
        )
        result.oursSamples = oursFigures.map(\.busyP99)
        result.baselineSamples = baselineFigures.map(\.busyP99)
        result.peakRSSMiB = oursPeak
        result.baselinePeakRSSMiB = Double(baseline.map(\.peakRSSKiB).max() ?? 0) / 1024

        func figures(_ prefix: String, _ reports: [ChildReport], _ figures: [MixedLoadFigures]) -> [(key: String, samples: [Double])] {
            [
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
        result.roundFigures = figures("ours", ours, oursFigures) + figures("baseline", baseline, baselineFigures)

        // The latency target compares each child's busy p99 with its own quiet p99 (same process,
        // minutes apart at most), then takes the median over rounds; peak RSS is the worst round.
        let oursRatio = Measure.median(oursFigures.map(\.p99Ratio))
        result.target = target
        result.targetMet = oursPeak <= 64 && oursRatio <= 3

        func line(_ name: String, _ reports: [ChildReport], _ figures: [MixedLoadFigures]) -> String {
            func median(_ values: [Double]) -> String { Format.number(Measure.median(values)) }
            return "  " + [
                Format.pad(name, 10),
                Format.padLeft(String(format: "%.1f", Double(reports.map(\.peakRSSKiB).max() ?? 0) / 1024), 8),
                Format.padLeft(median(figures.map(\.quietP50)), 9), Format.padLeft(median(figures.map(\.quietP99)), 9),
                Format.padLeft(median(figures.map(\.busyP50)), 9), Format.padLeft(median(figures.map(\.busyP99)), 9),
                Format.padLeft(Format.ratio(Measure.median(figures.map(\.p99Ratio))), 9),
                Format.padLeft(median(figures.map(\.streamMegabytesPerSecond)), 8),
                Format.padLeft(figures.map { String($0.gets) }.joined(separator: ","), 10),
            ].joined(separator: " ")
        }
        result.notes = [
            "mixed-load: \(MixedLoad.getCount) sequential GET /bytes/\(BenchServer.smallBytes) alone (quiet), then up to \(MixedLoad.getCount) more on the same session "
                + "while it streams \(options.bigBytes >> 20) MiB read at once (busy; none start after the stream's end); "
                + "medians over \(options.bigRounds) round(s), peak RSS the worst round:",
            "  " + [
                Format.pad("", 10), Format.padLeft("RSS MiB", 8), Format.padLeft("quiet p50", 9), Format.padLeft("quiet p99", 9),
                Format.padLeft("busy p50", 9), Format.padLeft("busy p99", 9), Format.padLeft("busy/quiet", 9),
                Format.padLeft("MB/s", 8), Format.padLeft("busy GETs", 10),
            ].joined(separator: " "),
            line("ours", ours, oursFigures),
            line("baseline", baseline, baselineFigures),
            "  (latencies in ms; busy/quiet is p99 over p99 per round; busy GETs: made while the stream ran, per round — "
                + "under 300 means the stream ended first, and under 100 makes the busy p99 their maximum)",
        ]
        return result
    }
}
