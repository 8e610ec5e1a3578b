import BenchmarkSupport
/// The names of the contenders every scenario reports (the JSON keys and `--variants` names).
enum ContenderKey {
    /// AsyncNetworking on the curl transport: the headline "ours".
    static let ours = "ours"
    /// AsyncNetworking on the URLSession transport.
    static let oursURLSession = "ours-urlsession"
    /// Raw URLSession with the library's configuration (the scenario's raw URLSession baseline).
    static let rawURLSession = "raw-urlsession"
    /// A bare libcurl multi loop on the same libcurl.so.4 (``RawCurlClient``): the limit.
    static let rawCurl = "raw-curl"
}

/// One contender's medians in one scenario.
struct Contender: Sendable {
    /// ``ContenderKey`` or another variant name.
    let key: String
    /// What it is, for the table's legend.
    let label: String
    /// Median over rounds, in the scenario's unit.
    let value: Double
    /// Every round's sample, in round order.
    var samples: [Double] = []
    /// Peak RSS of its child processes (worst round), MiB; memory scenarios only.
    var peakRSSMiB: Double?
    /// Median CPU microseconds per request (whole process); request scenarios only.
    var cpuMicroseconds: Double?
}

/// One of the targets, with what was measured.
struct Target: Sendable {
    /// The target in words, e.g. `ours (curl) >= 0.75x raw libcurl`.
    let text: String
    /// The measured figure, e.g. `0.81x` or `52.7 MiB`.
    let measured: String
    let holds: Bool
    /// A target kept from the URLSession-only era (ours on URLSession against raw URLSession).
    var urlSessionEra = false
}

/// The outcome of one scenario: every contender's median, secondary comparisons, memory, targets.
struct ScenarioResult: Sendable {
    /// A secondary comparison (another baseline, or a configuration setting's worth).
    struct Extra: Sendable {
        /// JSON key prefix and table label.
        let key: String
        let label: String
        let value: Double
        /// ours / value for rates, value / ours for times and memory (> 1: ours better); nil to omit.
        let ratio: Double?
        /// When it differs from the scenario's unit.
        var unit: String? = nil
    }

    let scenario: Scenario
    let unit: String
    /// For `s`, `ms` and `MiB` units lower is better.
    let lowerIsBetter: Bool
    /// In report order; ``ContenderKey/ours`` first.
    var contenders: [Contender] = []
    var extras: [Extra] = []
    /// Configuration settings measured one at a time (raw URLSession, `.default` plus one setting).
    var settings: [Extra] = []
    /// Median CPU microseconds per request of contenders that are not in ``contenders``.
    var extraCPU: [(name: String, microseconds: Double)] = []
    /// Further per-round figures (mixed-load): the JSON gets `key` (the median) and `key_samples`.
    var roundFigures: [(key: String, samples: [Double])] = []
    /// Lines for a section of their own under the table (mixed-load's figures).
    var notes: [String] = []
    var targets: [Target] = []

    init(scenario: Scenario, unit: String, lowerIsBetter: Bool) {
        self.scenario = scenario
        self.unit = unit
        self.lowerIsBetter = lowerIsBetter
    }

    func contender(_ key: String) -> Contender? {
        contenders.first { $0.key == key }
    }

    func value(_ key: String) -> Double? {
        contender(key)?.value
    }

    /// How much better `key` is than `other` (> 1: `key` better): `key / other` for rates,
    /// `other / key` for seconds, milliseconds and MiB. Nil when either is missing.
    func ratio(_ key: String, over other: String) -> Double? {
        guard let mine = value(key), let theirs = value(other) else { return nil }
        return ratio(mine, over: theirs)
    }

    func ratio(_ mine: Double, over theirs: Double) -> Double {
        lowerIsBetter ? theirs / max(mine, 1e-12) : mine / max(theirs, 1e-12)
    }

    /// Adds the four headline contenders (``ContenderKey``) that have samples, in report order,
    /// from ``alternate(_:_:rounds:unit:)``'s samples and CPU seconds per request: ours on each
    /// transport making `call`, raw URLSession as `rawURLSession` says, the raw loop with `width` handles.
    mutating func addContenders(call: String, rawURLSession: String, width: Int, samples: [String: [Double]], cpu: [String: [Double]]) {
        let labels = [
            ContenderKey.ours: "SessionManager(transport: .curl).\(call)",
            ContenderKey.oursURLSession: "SessionManager(transport: .urlSession).\(call)",
            ContenderKey.rawURLSession: rawURLSession,
            ContenderKey.rawCurl: "bare libcurl multi loop, \(width) easy handle(s) reused, <= \(RawCurlClient.libraryHostConnections) connections",
        ]
        for key in [ContenderKey.ours, ContenderKey.oursURLSession, ContenderKey.rawURLSession, ContenderKey.rawCurl] {
            guard let values = samples[key] else { continue }
            contenders.append(Contender(
                key: key, label: labels[key] ?? key, value: Measure.median(values), samples: values,
                cpuMicroseconds: cpu[key].map { Measure.median($0) * 1e6 }
            ))
        }
    }

    /// Adds a ratio target `key` ≥ `minimum` × `other`; does nothing when either contender is missing.
    mutating func addRatioTarget(_ text: String, _ key: String, over other: String, atLeast minimum: Double, urlSessionEra: Bool = false) {
        guard let ratio = ratio(key, over: other) else { return }
        targets.append(Target(text: text, measured: Format.ratio(ratio), holds: ratio >= minimum, urlSessionEra: urlSessionEra))
    }

    /// Adds a peak-RSS bound for `key`.
    mutating func addRSSTarget(_ key: String, atMost limit: Double, urlSessionEra: Bool = false) {
        guard let peak = contender(key)?.peakRSSMiB else { return }
        let who = key == ContenderKey.ours ? "ours (curl)" : key == ContenderKey.oursURLSession ? "ours (URLSession)" : key
        targets.append(Target(
            text: "\(who) peak RSS <= \(Int(limit)) MiB", measured: String(format: "%.1f MiB", peak),
            holds: peak <= limit, urlSessionEra: urlSessionEra
        ))
    }

    /// The JSON object for this scenario.
    var json: [String: Any] {
        var object: [String: Any] = ["unit": unit, "lower_is_better": lowerIsBetter]
        var table: [String: Any] = [:]
        for contender in contenders {
            var entry: [String: Any] = [
                "value": Format.rounded(contender.value),
                "label": contender.label,
                "samples": contender.samples.map(Format.rounded),
            ]
            if let peak = contender.peakRSSMiB { entry["peak_rss_mib"] = Format.rounded(peak) }
            if let cpu = contender.cpuMicroseconds { entry["cpu_us_per_request"] = Format.rounded(cpu) }
            if contender.key != ContenderKey.ours, let ratio = ratio(ContenderKey.ours, over: contender.key) {
                entry["ours_ratio"] = Format.rounded(ratio)
            }
            table[contender.key] = entry
        }
        object["contenders"] = table
        if let ours = value(ContenderKey.ours) { object["ours"] = Format.rounded(ours) }
        for extra in extras {
            object["extra_\(extra.key)"] = Format.rounded(extra.value)
            if let ratio = extra.ratio { object["ratio_\(extra.key)"] = Format.rounded(ratio) }
        }
        if !settings.isEmpty {
            var table: [String: Any] = [:]
            for setting in settings {
                table[setting.key] = ["value": Format.rounded(setting.value), "label": setting.label] as [String: Any]
            }
            object["settings"] = table
        }
        if !extraCPU.isEmpty {
            var table: [String: Double] = [:]
            for entry in extraCPU { table[entry.name] = Format.rounded(entry.microseconds) }
            object["extra_cpu_us_per_request"] = table
        }
        for figure in roundFigures where !figure.samples.isEmpty {
            object[figure.key] = Format.rounded(Measure.median(figure.samples))
            object[figure.key + "_samples"] = figure.samples.map(Format.rounded)
        }
        object["targets"] = targets.map { target -> [String: Any] in
            ["target": target.text, "measured": target.measured, "holds": target.holds, "urlsession_era": target.urlSessionEra]
        }
        object["targets_met"] = targets.allSatisfy(\.holds)
        return object
    }
}
