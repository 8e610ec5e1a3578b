import Foundation

/// The 1 GiB scenarios, measured from the parent: every variant of every round runs in a fresh
/// child process (this same binary with `--child`), ours and the baseline alternately, so each
/// peak RSS belongs to one variant alone. The parent's server feeds them over loopback.
enum MemoryScenarios {
    static func run(_ scenario: Scenario, server: BenchServer, options: Options, workdir: URL) async throws -> ScenarioResult {
        let bytes = options.bigBytes
        if scenario == .upload1g {
            let source = FileVariants.uploadSource(in: workdir)
            if !FileManager.default.fileExists(atPath: source.path) {
                log("  writing a \(bytes >> 20) MiB upload source")
                try FileVariants.writeSource(source, bytes: bytes)
            }
        }
        var reports: [ChildSpec.Mode: [ChildReport]] = [:]
        for round in 0..<options.bigRounds {
            let order: [ChildSpec.Mode] = round % 2 == 0 ? [.ours, .baseline] : [.baseline, .ours]
            var line = "  \(scenario.rawValue) round \(round + 1)/\(options.bigRounds):"
            for mode in order {
                let spec = ChildSpec(
                    scenario: scenario, mode: mode, server: server.baseURL, bytes: bytes, workdir: workdir,
                    result: workdir.appendingPathComponent("result-\(scenario.rawValue)-\(mode.rawValue)-\(round).json")
                )
                let report = try await ChildProcess.run(spec)
                reports[mode, default: []].append(report)
                line += String(format: " %@ %.0f MB/s %.1f MiB", mode.rawValue, report.megabytesPerSecond, Double(report.peakRSSKiB) / 1024)
            }
            log(line)
        }
        let ours = reports[.ours] ?? []
        let baseline = reports[.baseline] ?? []
        let oursPeak = Double(ours.map(\.peakRSSKiB).max() ?? 0) / 1024
        let baselinePeak = Double(baseline.map(\.peakRSSKiB).max() ?? 0) / 1024

        var result: ScenarioResult
        if scenario == .slowConsumer1g {
            // Both read at the consumer's pace; what differs is memory.
            result = ScenarioResult(
                scenario: scenario, unit: "MiB", lowerIsBetter: true,
                ours: Measure.median(ours.map { Double($0.peakRSSKiB) / 1024 }),
                baseline: Measure.median(baseline.map { Double($0.peakRSSKiB) / 1024 }),
                baselineLabel: "raw delegate bridged to an unbounded AsyncThrowingStream, peak RSS"
            )
            result.oursSamples = ours.map { Double($0.peakRSSKiB) / 1024 }
            result.baselineSamples = baseline.map { Double($0.peakRSSKiB) / 1024 }
            let oursRate = Measure.median(ours.map(\.megabytesPerSecond))
            let baselineRate = Measure.median(baseline.map(\.megabytesPerSecond))
            result.extras = [
                .init(key: "mbps", label: "consumer-paced throughput (ours \(Format.number(oursRate)) MB/s)", value: baselineRate, ratio: oursRate / baselineRate, unit: "MB/s"),
            ]
        } else {
            let label: String
            switch scenario {
            case .stream1g: label = "raw delegate counting bytes, same configuration"
            case .download1g: label = "URLSession.download(for:) + move, same configuration (ours: download(for:to:))"
            default: label = "URLSession.upload(for:fromFile:), same configuration (ours: upload(for:fromFile:))"
            }
            result = ScenarioResult(
                scenario: scenario, unit: "MB/s", lowerIsBetter: false,
                ours: Measure.median(ours.map(\.megabytesPerSecond)),
                baseline: Measure.median(baseline.map(\.megabytesPerSecond)),
                baselineLabel: label
            )
            result.oursSamples = ours.map(\.megabytesPerSecond)
            result.baselineSamples = baseline.map(\.megabytesPerSecond)
        }
        result.peakRSSMiB = oursPeak
        result.baselinePeakRSSMiB = baselinePeak
        if scenario == .stream1g {
            result.target = "ours >= 0.9 x raw delegate, peak RSS <= 64 MiB"
            result.targetMet = result.ratio >= 0.9 && oursPeak <= 64
        } else {
            result.target = "peak RSS <= 100 MiB"
            result.targetMet = oursPeak <= 100
        }
        return result
    }
}

/// Re-executes this binary as a child for one measurement and reads its report.
enum ChildProcess {
    static func run(_ spec: ChildSpec) async throws -> ChildReport {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "--child", spec.scenario.rawValue, "--mode", spec.mode.rawValue,
            "--server", spec.server.absoluteString, "--bytes", String(spec.bytes),
            "--workdir", spec.workdir.path, "--result", spec.result.path,
        ]
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        defer { try? FileManager.default.removeItem(at: spec.result) }
        guard status == 0 else {
            throw BenchmarkError("child \(spec.scenario.rawValue) --mode \(spec.mode.rawValue) exited with status \(status)")
        }
        return try JSONDecoder().decode(ChildReport.self, from: Data(contentsOf: spec.result))
    }
}
