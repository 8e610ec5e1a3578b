/// The outcome of one scenario: medians of ours and the main baseline, their ratio (> 1 means ours
/// is better), secondary baselines, memory, and whether the target holds.
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
    /// For `s` and `MiB` units lower is better, so `ratio = baseline / ours`.
    let lowerIsBetter: Bool
    let ours: Double
    let baseline: Double
    /// What the main baseline is, for the table.
    let baselineLabel: String
    var extras: [Extra] = []
    /// Configuration settings measured one at a time (raw URLSession, `.default` plus one setting).
    var settings: [Extra] = []
    /// Peak RSS while ours ran (max over rounds), MiB.
    var peakRSSMiB: Double?
    /// Peak RSS while the baseline ran (max over rounds), MiB.
    var baselinePeakRSSMiB: Double?
    /// Every round's samples, for the JSON.
    var oursSamples: [Double] = []
    var baselineSamples: [Double] = []
    /// Median CPU microseconds per request of each contender (whole process: every thread,
    /// the embedded server included), for the request scenarios.
    var cpuPerRequest: [(name: String, microseconds: Double)] = []
    /// Further per-round figures (mixed-load): the JSON gets `key` (the median) and `key_samples`.
    var roundFigures: [(key: String, samples: [Double])] = []
    /// Lines for a section of their own under the table (mixed-load's figures).
    var notes: [String] = []
    /// The target in words, and whether it holds.
    var target = ""
    var targetMet: Bool?

    init(scenario: Scenario, unit: String, lowerIsBetter: Bool, ours: Double, baseline: Double, baselineLabel: String) {
        self.scenario = scenario
        self.unit = unit
        self.lowerIsBetter = lowerIsBetter
        self.ours = ours
        self.baseline = baseline
        self.baselineLabel = baselineLabel
    }

    /// > 1 always means ours is better.
    var ratio: Double {
        lowerIsBetter ? baseline / max(ours, 1e-12) : ours / max(baseline, 1e-12)
    }

    /// The ratio of ours against another measurement of the same unit.
    func ratio(against other: Double) -> Double {
        lowerIsBetter ? other / max(ours, 1e-12) : ours / max(other, 1e-12)
    }

    /// The JSON object for this scenario.
    var json: [String: Any] {
        var object: [String: Any] = [
            "ours": Format.rounded(ours),
            "baseline": Format.rounded(baseline),
            "ratio": Format.rounded(ratio),
            "unit": unit,
            "baseline_kind": baselineLabel,
            "ours_samples": oursSamples.map(Format.rounded),
            "baseline_samples": baselineSamples.map(Format.rounded),
        ]
        for extra in extras {
            object["baseline_\(extra.key)"] = Format.rounded(extra.value)
            if let ratio = extra.ratio { object["ratio_\(extra.key)"] = Format.rounded(ratio) }
        }
        if !settings.isEmpty {
            var table: [String: Any] = [:]
            for setting in settings {
                table[setting.key] = ["value": Format.rounded(setting.value), "label": setting.label] as [String: Any]
            }
            object["settings"] = table
        }
        if !cpuPerRequest.isEmpty {
            var table: [String: Double] = [:]
            for entry in cpuPerRequest { table[entry.name] = Format.rounded(entry.microseconds) }
            object["cpu_us_per_request"] = table
        }
        for figure in roundFigures where !figure.samples.isEmpty {
            object[figure.key] = Format.rounded(Measure.median(figure.samples))
            object[figure.key + "_samples"] = figure.samples.map(Format.rounded)
        }
        if let peakRSSMiB { object["peak_rss_mib"] = Format.rounded(peakRSSMiB) }
        if let baselinePeakRSSMiB { object["baseline_peak_rss_mib"] = Format.rounded(baselinePeakRSSMiB) }
        if !target.isEmpty { object["target"] = target }
        if let targetMet { object["target_met"] = targetMet }
        return object
    }
}
