import Foundation

/// Timing, statistics and memory readings shared by every benchmark.
package enum Measure {
    /// Seconds in a `Duration`.
    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Runs `body` and returns its wall-clock time in seconds.
    package static func time(_ body: () async throws -> Void) async throws -> Double {
        let start = ContinuousClock.now
        try await body()
        return seconds(ContinuousClock.now - start)
    }

    /// The median (mean of the two middle values for an even count); NaN for no samples.
    package static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `p`th percentile by nearest rank: the smallest sample with at least `p`% of the samples at
    /// or below it (for 300 samples, p99 is the 4th largest); NaN for no samples.
    package static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Megabytes (10^6 bytes) per second.
    package static func megabytesPerSecond(_ bytes: Int, seconds: Double) -> Double {
        Double(bytes) / 1e6 / max(seconds, 1e-9)
    }

    /// User plus system CPU time of the whole process so far (every thread), in seconds.
    package static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The process's peak resident set size so far (`VmHWM` in /proc/self/status), in KiB.
    package static func peakRSSKiB() -> Int {
        statusField("VmHWM") ?? 0
    }

    /// The process's resident set size now (`VmRSS`), in KiB.
    package static func currentRSSKiB() -> Int {
        statusField("VmRSS") ?? 0
    }

    private static func statusField(_ name: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).filter(\.isNumber))
        }
        return nil
    }
}

/// Formatting for the human tables.
package enum Format {
    /// A value with a sensible number of digits for its size; `-` when not finite.
    package static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        switch abs(value) {
        case 1_000...: return String(format: "%.0f", value)
        case 100..<1_000: return String(format: "%.1f", value)
        case 1..<100: return String(format: "%.2f", value)
        default: return String(format: "%.3f", value)
        }
    }

    /// A ratio as `0.973x`; `-` when not finite.
    package static func ratio(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3fx", value) : "-"
    }

    /// MiB with one decimal, as the RSS columns show it.
    package static func mebibytes(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    package static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    package static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// Rounds to 4 significant digits for JSON (non-finite values become -1).
    package static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return -1 }
        guard value != 0 else { return 0 }
        let digits = 4 - Int(floor(log10(abs(value)))) - 1
        let scale = pow(10, Double(max(0, digits)))
        return (value * scale).rounded() / scale
    }

    /// A JSON key from a contender name (`ours-urlsession` → `ours_urlsession`).
    package static func key(_ name: String) -> String {
        name.replacingOccurrences(of: "-", with: "_")
    }
}

/// Progress lines on stderr, so stdout holds only the table.
package func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// A benchmark run failed (a wrong status, a short body, a child that crashed).
package struct BenchmarkError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
