import Foundation

/// Human-readable sizes, rates, durations and terminal column widths.
public enum Formatting {
    /// `512 B`, `1.5 KiB`, `12.3 MiB`, `2.00 GiB`.
    public static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(max(0, count))
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(Int(value)) B" }
        return String(format: value >= 100 ? "%.0f %@" : value >= 10 ? "%.1f %@" : "%.2f %@", value, units[unit])
    }

    /// `4.1 MiB/s`.
    public static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(max(0, bytesPerSecond.isFinite ? bytesPerSecond : 0))) + "/s"
    }

    /// `0:07`, `12:34`, `1:02:03`; `--:--` when unknown or absurd.
    public static func duration(_ seconds: Double?) -> String {
        guard let seconds, seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let whole = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// `1.23 s` or `120 ms`.
    public static func seconds(_ seconds: Double) -> String {
        seconds < 1 ? String(format: "%.0f ms", seconds * 1000) : String(format: "%.2f s", seconds)
    }

    /// Terminal columns `text` occupies: wide East Asian characters and emoji count 2, combining
    /// marks and zero-width characters 0, everything else 1.
    public static func columns(_ text: some StringProtocol) -> Int {
        text.unicodeScalars.reduce(0) { $0 + columns(of: $1) }
    }

    static func columns(of scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` cut to at most `width` columns; a cut keeps both ends around `…`, so an extension stays.
    public static func fit(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        guard width > 1 else { return "…" }
        let keep = width - 1
        let headColumns = (keep + 1) / 2
        var head = ""
        var used = 0
        for character in text {
            let size = columns(String(character))
            if used + size > headColumns { break }
            head.append(character)
            used += size
        }
        var tail = ""
        var tailUsed = 0
        for character in text.reversed() {
            let size = columns(String(character))
            if used + tailUsed + size > keep { break }
            tail.insert(character, at: tail.startIndex)
            tailUsed += size
        }
        return head + "…" + tail
    }

    /// `text` cut to at most `width` columns at its end (`…` marks the cut).
    public static func fitEnd(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        guard columns(text) > width else { return text }
        var kept = ""
        var used = 0
        for character in text {
            let size = columns(String(character))
            if used + size > width - 1 { break }
            kept.append(character)
            used += size
        }
        return kept + "…"
    }

    /// `text` padded with spaces to `width` columns (never cut).
    public static func pad(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - columns(text)))
    }

    /// `text` padded on the left to `width` columns.
    public static func padLeft(_ text: String, to width: Int) -> String {
        String(repeating: " ", count: max(0, width - columns(text))) + text
    }
}
