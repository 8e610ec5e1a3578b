#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// HTTP dates (RFC 9110 §5.6.7) as seconds since 1970-01-01T00:00:00Z, written out by hand: pure,
/// thread-safe, no locale, no formatter. The one copy behind the cache's, the client's and the test
/// server's dates.
///
/// Parsing accepts the three formats a recipient must: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
/// obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C `asctime` (`Sun Nov  6 08:49:37 1994`).
/// A date that does not exist (31 February), a year of other than four digits in IMF-fixdate and
/// `asctime`, or anything else is `nil` (so `Expires: 0` reads as "already expired").
package enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"] // 1970-01-01 was a Thursday
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    /// The seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    private static let range = -62_135_596_800...253_402_300_799

    /// `epochSeconds` as an IMF-fixdate; values outside years 1...9999 are clamped to them.
    package static func format(epochSeconds: Int) -> String {
        let seconds = min(range.upperBound, max(range.lowerBound, epochSeconds))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(daysSinceEpoch: days)
        let weekday = weekdays[((days % 7) + 7) % 7]
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        return "\(weekday), \(two(day)) \(months[month - 1]) \(yearText) "
            + "\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60)) GMT"
    }

    /// The epoch seconds of an HTTP date in any of the three formats, or `nil`.
    /// - Parameter currentYear: the year RFC 850's two-digit years are read against: a year that
    ///   would be more than 50 years after it is in the previous century. Default: this year (UTC).
    package static func parse(_ text: String, currentYear: Int? = nil) -> Int? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        var day: Int?, month: Int?, year: Int?, time: Substring?
        switch fields.count {
        case 6 where fields[5] == "GMT" && fields[0].hasSuffix(","): // IMF-fixdate
            guard fields[3].count == 4, fields[1].count == 2 else { return nil }
            (day, month, year, time) = (Int(fields[1]), monthNumber(fields[2]), Int(fields[3]), fields[4])
        case 4 where fields[3] == "GMT" && fields[0].hasSuffix(","): // RFC 850
            let parts = fields[1].split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2].count == 2, let shortYear = Int(parts[2]) else { return nil }
            let now = currentYear ?? thisYear()
            var fullYear = now / 100 * 100 + shortYear
            if fullYear > now + 50 { fullYear -= 100 } else if fullYear < now - 50 { fullYear += 100 }
            (day, month, year, time) = (Int(parts[0]), monthNumber(parts[1]), fullYear, fields[2])
        case 5 where !fields[0].hasSuffix(","): // asctime
            guard fields[4].count == 4 else { return nil }
            (day, month, year, time) = (Int(fields[2]), monthNumber(fields[1]), Int(fields[4]), fields[3])
        default:
            return nil
        }
        guard let day, let month, let year, let time, (1...9999).contains(year),
              CivilDate.isValid(year: year, month: month, day: day) else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        return CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static func monthNumber(_ text: Substring) -> Int? {
        months.firstIndex { $0.compare(text) }.map { $0 + 1 }
    }

    private static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// This year in UTC, from the system clock.
    private static func thisYear() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return CivilDate.date(daysSinceEpoch: Int(now.tv_sec) / 86_400).year
    }
}

private extension String {
    /// ASCII case-insensitive equality.
    func compare(_ other: Substring) -> Bool {
        utf8.count == other.utf8.count && zip(utf8, other.utf8).allSatisfy { ($0 | 0x20) == ($1 | 0x20) }
    }
}
