import BenchmarkSupport
import Foundation

/// mixed-load, measured from the parent: each round runs ours on curl, ours on URLSession, the raw
/// URLSession baseline and a bare libcurl loop (``RawCurlMixedLoad``) in a child process each (rotating which goes first, as the 1 GiB
/// scenarios do); see ``MixedLoad`` for what one child does. The table's row is the busy p99
/// latency; the rest goes in a section below.
enum MixedLoadScenario {
    static func run(server: BenchServer, options: Options, workdir: Workdir) async throws -> ScenarioResult {
        let scenario = Scenario.mixedLoad
        log("  \(scenario.rawValue): \(options.bigRounds) round(s)")
        let reports = try await MemoryScenarios.runChildren(scenario, server: server, options: options, workdir: workdir) { mode, report in
            MixedLoadReport.progress(mode.rawValue, report)
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
            let figures = runs.mixed
            guard !figures.isEmpty else { continue }
            result.contenders.append(Contender(
                key: mode.rawValue, label: labels[mode] ?? mode.rawValue,
                value: Measure.median(figures.map(\.busyP99)), samples: figures.map(\.busyP99),
                peakRSSMiB: runs.peakRSSMiB
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

        result.notes = MixedLoadReport.lines(
            modes.map { ($0.rawValue, reports[$0] ?? []) }, bytes: options.bigBytes, rounds: options.bigRounds
        )
        return result
    }
}
