import BenchmarkSupport
import Foundation

/// The 1 GiB scenarios, measured from the parent: every contender of every round runs in a fresh
/// child process (this same binary with `--child`), the contenders in rotating order, so each peak
/// RSS belongs to one contender alone. The parent's server feeds them.
///
/// Contenders: ours on curl, ours on URLSession, the raw URLSession baseline, and on stream-1g (and
/// mixed-load) the bare libcurl loop (the limit).
enum MemoryScenarios {
    /// The contenders of a memory scenario, in report order.
    static func modes(_ scenario: Scenario) -> [ChildSpec.Mode] {
        switch scenario {
        case .stream1g: [.ours, .oursURLSession, .baseline, .rawCurl, .oursOnLoop]
        case .mixedLoad: [.ours, .oursURLSession, .baseline, .rawCurl]
        default: [.ours, .oursURLSession, .baseline]
        }
    }

    /// Runs every contender of `scenario` `rounds` times, each in a child process; round `r`
    /// starts with contender `r mod count`.
    static func runChildren(
        _ scenario: Scenario, server: BenchServer, options: Options, workdir: Workdir,
        describe: (ChildSpec.Mode, ChildReport) -> String
    ) async throws -> [ChildSpec.Mode: [ChildReport]] {
        var reports: [ChildSpec.Mode: [ChildReport]] = [:]
        try await rotateRounds(modes(scenario), rounds: options.bigRounds, name: scenario.rawValue) { mode in
            let spec = ChildSpec(
                scenario: scenario, mode: mode, server: server.baseURL, bytes: options.bigBytes, workdir: workdir.url,
                result: workdir.result(scenario.rawValue, mode.rawValue, round: reports[mode, default: []].count)
            )
            let report = try await ChildProcess.run(
                arguments: [
                    "--child", spec.scenario.rawValue, "--mode", spec.mode.rawValue,
                    "--server", spec.server.absoluteString, "--bytes", String(spec.bytes),
                    "--workdir", spec.workdir.path, "--result", spec.result.path,
                ],
                result: spec.result, name: "\(spec.scenario.rawValue) --mode \(spec.mode.rawValue)"
            )
            reports[mode, default: []].append(report)
            return describe(mode, report)
        }
        return reports
    }

    static func run(_ scenario: Scenario, server: BenchServer, options: Options, workdir: Workdir) async throws -> ScenarioResult {
        let bytes = options.bigBytes
        if scenario == .upload1g {
            let source = FileVariants.uploadSource(in: workdir.url)
            if !FileManager.default.fileExists(atPath: source.path) {
                log("  writing a \(bytes >> 20) MiB upload source")
                try FileVariants.writeSource(source, bytes: bytes)
            }
        }
        let reports = try await runChildren(scenario, server: server, options: options, workdir: workdir) { mode, report in
            String(format: " %@ %.0f MB/s %.1f MiB", mode.rawValue, report.value, Double(report.peakRSSKiB) / 1024)
        }

        let slow = scenario == .slowConsumer1g
        // slow-consumer-1g: every contender reads at the consumer's pace; what differs is memory.
        var result = slow
            ? ScenarioResult(scenario: scenario, unit: "MiB", lowerIsBetter: true)
            : ScenarioResult(scenario: scenario, unit: "MB/s", lowerIsBetter: false)
        let ours: String
        let baseline: String
        switch scenario {
        case .stream1g:
            ours = "the transfer's event stream (dataTask(with:) + handle.events), counting .data bytes"
            baseline = "raw delegate counting bytes, the library's configuration"
        case .download1g:
            ours = "download(for:to: .file(url))"
            baseline = "URLSession.download(for:) + move"
        case .upload1g:
            ours = "upload(for:fromFile:)"
            baseline = "URLSession.upload(for:fromFile:)"
        default:
            ours = "stream(for:) read at 128 MiB/s; value: peak RSS"
            baseline = "raw delegate bridged to an unbounded AsyncThrowingStream, same consumer; value: peak RSS"
        }
        for mode in modes(scenario) {
            guard let runs = reports[mode], !runs.isEmpty else { continue }
            let label: String
            switch mode {
            case .ours: label = "curl transport: " + ours
            case .oursURLSession: label = "URLSession transport: " + ours
            case .baseline: label = baseline
            case .rawCurl: label = "bare libcurl loop, one easy handle, write callback counting bytes"
            case .oursOnLoop: label = "curl transport, consumer on the manager's loop thread (withTaskExecutorPreference): " + ours
            }
            let values = slow ? runs.map { Double($0.peakRSSKiB) / 1024 } : runs.map(\.value)
            result.contenders.append(Contender(
                key: mode.rawValue, label: label, value: Measure.median(values), samples: values,
                peakRSSMiB: runs.peakRSSMiB
            ))
        }
        if slow {
            result.extras = modes(scenario).compactMap { mode in
                guard let runs = reports[mode] else { return nil }
                return .init(
                    key: "\(mode.rawValue.replacingOccurrences(of: "-", with: "_"))_mbps",
                    label: "consumer-paced throughput, \(mode.rawValue)", value: Measure.median(runs.map(\.value)),
                    ratio: nil, unit: "MB/s"
                )
            }
        }
        switch scenario {
        case .stream1g:
            result.addRatioTarget("ours (curl) >= 0.9x raw libcurl", ContenderKey.ours, over: ContenderKey.rawCurl, atLeast: 0.9)
            result.addRatioTarget(
                "ours, consumer on the loop >= 0.95x raw libcurl", ChildSpec.Mode.oursOnLoop.rawValue, over: ContenderKey.rawCurl, atLeast: 0.95
            )
            result.addRSSTarget(ContenderKey.ours, atMost: 64)
            result.addRatioTarget(
                "ours (URLSession) >= 0.9x raw delegate", ContenderKey.oursURLSession, over: ContenderKey.rawURLSession,
                atLeast: 0.9, urlSessionEra: true
            )
            result.addRSSTarget(ContenderKey.oursURLSession, atMost: 64, urlSessionEra: true)
        case .slowConsumer1g:
            result.addRSSTarget(ContenderKey.ours, atMost: 64)
            result.addRSSTarget(ContenderKey.oursURLSession, atMost: 100, urlSessionEra: true)
        default:
            result.addRSSTarget(ContenderKey.ours, atMost: 100)
            result.addRSSTarget(ContenderKey.oursURLSession, atMost: 100, urlSessionEra: true)
        }
        return result
    }
}
