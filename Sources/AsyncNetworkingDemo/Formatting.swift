import Foundation

/// `12.3 MiB` or `512 B`.
func formatBytes(_ bytes: Int64) -> String {
    let mib = Double(bytes) / 1_048_576
    return mib >= 1 ? String(format: "%.1f MiB", mib) : "\(bytes) B"
}

/// A `Duration` in seconds.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// A one-line text progress bar.
func bar(_ fraction: Double?, width: Int = 30) -> String {
    guard let fraction else { return "[" + String(repeating: "?", count: width) + "]" }
    let filled = Int((fraction * Double(width)).rounded())
    return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
        + String(format: " %5.1f%%", fraction * 100)
}

/// The value after `name` on the command line.
func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
