import Foundation

/// Timing, statistics and memory readings.
enum Measure {
    /// Seconds in a `Duration`.
    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The median (mean of the two middle values for an even count).
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The `p`th percentile by nearest rank (for 300 samples, p99 is the 4th largest).
    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// Megabytes (10^6 bytes) per second.
    static func megabytesPerSecond(_ bytes: Int, seconds: Double) -> Double {
        Double(bytes) / 1e6 / max(seconds, 1e-9)
    }

    /// User plus system CPU time of the whole process so far (every thread), in seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The process's peak resident set size so far (`VmHWM` in /proc/self/status), in KiB.
    static func peakRSSKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return Int(line.dropFirst(6).filter(\.isNumber)) ?? 0
        }
        return 0
    }
}

/// Formatting for the human table.
enum Format {
    /// A value with a sensible number of digits for its size.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "-" }
        switch abs(value) {
        case 1_000...: return String(format: "%.0f", value)
        case 100..<1_000: return String(format: "%.1f", value)
        case 1..<100: return String(format: "%.2f", value)
        default: return String(format: "%.3f", value)
        }
    }

    /// A ratio as `0.973x`.
    static func ratio(_ value: Double) -> String {
        value.isFinite ? String(format: "%.3fx", value) : "-"
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func padLeft(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    /// Rounds to 4 significant digits for JSON (non-finite values become -1).
    static func rounded(_ value: Double) -> Double {
        guard value.isFinite else { return -1 }
        guard value != 0 else { return 0 }
        let digits = 4 - Int(floor(log10(abs(value)))) - 1
        let scale = pow(10, Double(max(0, digits)))
        return (value * scale).rounded() / scale
    }
}

/// Progress lines on stderr, so stdout holds only the table.
func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

/// A run failed (a wrong status, a short body, a child that crashed).
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `operation(i)` for every `i` in `0..<count` with at most `width` running at once, starting
/// in order and refilling as each ends (a sliding-window TaskGroup). With `width` 1 it is a plain
/// loop in the calling task.
func slidingWindow(count: Int, width: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws {
    if width <= 1 {
        for index in 0..<count { try await operation(index) }
        return
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(width, count) {
            let index = next
            group.addTask { try await operation(index) }
            next += 1
        }
        while try await group.next() != nil {
            if next < count {
                let index = next
                group.addTask { try await operation(index) }
                next += 1
            }
        }
    }
}
