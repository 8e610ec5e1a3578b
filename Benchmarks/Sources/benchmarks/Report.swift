import BenchmarkSupport
import Foundation

/// The human table on stdout and the JSON file for tools.
enum Report {
    static func table(_ results: [ScenarioResult], header: String) -> String {
        let ours = ContenderKey.ours, oursUS = ContenderKey.oursURLSession
        let rawUS = ContenderKey.rawURLSession, rawCurl = ContenderKey.rawCurl
        var lines = [header, ""]
        let columns = [17, 6, 10, 10, 10, 10, 11, 11, 11, 9, 0]
        func row(_ cells: [String]) -> String {
            zip(cells, columns).enumerated().map { index, pair in
                index >= 2 && index <= 9 ? Format.padLeft(pair.0, pair.1) + " " : Format.pad(pair.0, pair.1) + " "
            }.joined().trimmingCharacters(in: .whitespaces)
        }
        lines.append(row(["scenario", "unit", "ours", "ours-URLS", "raw URLS", "raw curl", "ours/curl", "ours/URLS", "oursURLS/URLS", "ours RSS", "targets"]))
        for result in results {
            func value(_ key: String) -> String { result.value(key).map(Format.number) ?? "-" }
            func ratio(_ key: String, _ other: String) -> String { result.ratio(key, over: other).map(Format.ratio) ?? "-" }
            let missed = result.targets.filter { !$0.holds }.count
            let summary = result.targets.isEmpty ? "" : missed == 0 ? "all \(result.targets.count) hold" : "\(missed) of \(result.targets.count) MISSED"
            lines.append(row([
                result.scenario.rawValue, result.unit, value(ours), value(oursUS), value(rawUS), value(rawCurl),
                ratio(ours, rawCurl), ratio(ours, rawUS), ratio(oursUS, rawUS),
                result.contender(ours)?.peakRSSMiB.map { String(format: "%.1f", $0) } ?? "-",
                summary,
            ]))
        }
        lines.append("")
        lines.append("ours = AsyncNetworking on the curl transport; ours-URLS = on the URLSession transport; raw URLS = raw URLSession,")
        lines.append("the library's configuration; raw curl = a bare libcurl multi loop on the same libcurl.so.4 (the limit).")
        lines.append("a/b > 1: a is better (rates: a / b; s, ms and MiB: b / a). RSS: MiB, worst round. Medians over rounds.")

        let memory = results.filter { $0.contenders.contains { $0.peakRSSMiB != nil } }
        if !memory.isEmpty {
            lines.append("")
            lines.append("Peak RSS, MiB (VmHWM of each contender's child process, worst round):")
            lines.append("  " + Format.pad("", 17) + [ours, oursUS, rawUS, rawCurl].map { Format.padLeft($0, 16) }.joined())
            for result in memory {
                let cells = [ours, oursUS, rawUS, rawCurl].map { key in
                    Format.padLeft(result.contender(key)?.peakRSSMiB.map { String(format: "%.1f", $0) } ?? "-", 16)
                }
                lines.append("  " + Format.pad(result.scenario.rawValue, 17) + cells.joined())
            }
        }

        lines.append("")
        lines.append("Targets (ratios of medians in this run):")
        for result in results {
            for target in result.targets {
                let era = target.urlSessionEra ? "  [URLSession-era target]" : ""
                lines.append("  \(Format.pad(target.holds ? "holds" : "MISSED", 7)) \(Format.pad(result.scenario.rawValue, 17)) \(Format.pad(target.text, 62)) \(target.measured)\(era)")
            }
        }

        lines.append("")
        lines.append("Contenders:")
        for result in results {
            for contender in result.contenders {
                lines.append("  \(Format.pad(result.scenario.rawValue, 17)) \(Format.pad(contender.key, 16)) \(contender.label)")
            }
        }
        let withExtras = results.filter { !$0.extras.isEmpty }
        if !withExtras.isEmpty {
            lines.append("")
            lines.append("Other comparisons (medians; ratio is ours (curl) against it):")
            for result in withExtras {
                for extra in result.extras {
                    let ratio = extra.ratio.map { "  ours " + Format.ratio($0) } ?? ""
                    lines.append("  \(Format.pad(result.scenario.rawValue, 17)) \(Format.pad(extra.label, 70)) \(Format.padLeft(Format.number(extra.value), 8)) \(extra.unit ?? result.unit)\(ratio)")
                }
            }
        }
        let withCPU = results.filter { result in result.contenders.contains { $0.cpuMicroseconds != nil } }
        if !withCPU.isEmpty {
            lines.append("")
            lines.append("CPU per request, µs (median; the whole process: client, runtime and embedded server):")
            for result in withCPU {
                let cells = result.contenders.compactMap { contender in
                    contender.cpuMicroseconds.map { "\(contender.key) \(String(format: "%.0f", $0))" }
                } + result.extraCPU.map { "\($0.name) \(String(format: "%.0f", $0.microseconds))" }
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

    /// `{"small-seq": {...}, ...}`: every scenario's ``ScenarioResult/json``.
    static func json(_ results: [ScenarioResult]) throws -> Data {
        var object: [String: Any] = [:]
        for result in results { object[result.scenario.rawValue] = result.json }
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }
}
