import Foundation

/// The human table on stdout and the JSON file for tools.
enum Report {
    /// The machine, for the table header and the README.
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
        return "\(cores) cores (nproc), \(model), Linux \(kernel), \(swiftVersion()), load average before the run \(load)"
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

    static func table(_ results: [ScenarioResult], header: String) -> String {
        var lines = [header, ""]
        let columns = [18, 7, 10, 10, 9, 9, 8, 0]
        func row(_ cells: [String]) -> String {
            zip(cells, columns).enumerated().map { index, pair in
                index >= 2 && index <= 6 ? Format.padLeft(pair.0, pair.1) + "  " : Format.pad(pair.0, pair.1)
            }.joined().trimmingCharacters(in: .whitespaces)
        }
        lines.append(row(["scenario", "unit", "ours", "baseline", "ratio", "ours RSS", "base RSS", "target"]))
        for result in results {
            let met = result.targetMet.map { $0 ? "holds" : "MISSED" } ?? ""
            lines.append(row([
                result.scenario.rawValue, result.unit, Format.number(result.ours), Format.number(result.baseline),
                Format.ratio(result.ratio),
                result.peakRSSMiB.map { String(format: "%.1f", $0) } ?? "-",
                result.baselinePeakRSSMiB.map { String(format: "%.1f", $0) } ?? "-",
                "\(met): \(result.target)",
            ]))
        }
        lines.append("")
        lines.append("ratio > 1: ours is better (rates: ours / baseline; seconds and MiB: baseline / ours). RSS: MiB, peak of any round.")
        lines.append("Baselines:")
        for result in results {
            lines.append("  \(Format.pad(result.scenario.rawValue, 17)) \(result.baselineLabel)")
        }
        let withExtras = results.filter { !$0.extras.isEmpty }
        if !withExtras.isEmpty {
            lines.append("")
            lines.append("Other comparisons (medians; ratio is ours against it):")
            for result in withExtras {
                for extra in result.extras {
                    let ratio = extra.ratio.map { "  ours " + Format.ratio($0) } ?? ""
                    lines.append("  \(Format.pad(result.scenario.rawValue, 17)) \(Format.pad(extra.label, 58)) \(Format.padLeft(Format.number(extra.value), 8)) \(extra.unit ?? result.unit)\(ratio)")
                }
            }
        }
        let withCPU = results.filter { !$0.cpuPerRequest.isEmpty }
        if !withCPU.isEmpty {
            lines.append("")
            lines.append("CPU per request, µs (median; the whole process: client, runtime and embedded server):")
            for result in withCPU {
                let cells = result.cpuPerRequest.map { "\($0.name) \(String(format: "%.0f", $0.microseconds))" }
                lines.append("  \(Format.pad(result.scenario.rawValue, 17)) \(cells.joined(separator: ", "))")
            }
        }
        for result in results where !result.notes.isEmpty {
            lines.append("")
            lines.append(contentsOf: result.notes)
        }
        for result in results where !result.settings.isEmpty {
            lines.append("")
            lines.append("What each setting of SessionManager.defaultConfiguration() is worth (\(result.scenario.rawValue), raw URLSession.data(for:)):")
            for setting in result.settings {
                let ratio = setting.ratio.map { "  " + Format.ratio($0) + " of .default" } ?? ""
                lines.append("  \(Format.pad(setting.label, 42)) \(Format.padLeft(Format.number(setting.value), 8)) \(result.unit)\(ratio)")
            }
        }
        return lines.joined(separator: "\n")
    }

    static func writeJSON(_ results: [ScenarioResult], to path: String) throws {
        var object: [String: Any] = [:]
        for result in results { object[result.scenario.rawValue] = result.json }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
