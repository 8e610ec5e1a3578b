import Foundation

/// Parses the three HTTP date formats a cache must accept (RFC 9110 §5.6.7): IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and
/// ANSI C `asctime` (`Sun Nov  6 08:49:37 1994`). Pure, written out by hand (no formatter, no locale).
enum HTTPDateParser {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date, or `nil` for anything that is not one of the three formats (including `0` and `-1`,
    /// which `Expires` readers must treat as "already expired").
    static func parse(_ text: String) -> Date? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        var day: Int?, month: Int?, year: Int?, time: String?
        switch fields.count {
        case 6 where fields[5] == "GMT" && fields[0].hasSuffix(","): // IMF-fixdate
            (day, month, year, time) = (Int(fields[1]), monthIndex(fields[2]), Int(fields[3]), fields[4])
        case 4 where fields[3] == "GMT" && fields[0].hasSuffix(","): // RFC 850
            let parts = fields[1].split(separator: "-").map(String.init)
            guard parts.count == 3, let shortYear = Int(parts[2]) else { return nil }
            // Two-digit years: 50 years or more ahead means the past century (RFC 9110 §5.6.7).
            let fullYear = parts[2].count == 2 ? (shortYear < 50 ? 2000 + shortYear : 1900 + shortYear) : shortYear
            (day, month, year, time) = (Int(parts[0]), monthIndex(parts[1]), fullYear, fields[2])
        case 5 where !fields[0].hasSuffix(","): // asctime
            (day, month, year, time) = (Int(fields[2]), monthIndex(fields[1]), Int(fields[4]), fields[3])
        default:
            return nil
        }
        guard let day, let month, let year, let time, (1...31).contains(day), (1...9999).contains(year) else { return nil }
        let clock = time.split(separator: ":").map { Int($0) }
        guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
              (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        let seconds = daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Formats a date as IMF-fixdate. Dates before year 1 or after 9999 (or NaN) are clamped to
    /// that range: never a trap.
    static func format(_ date: Date) -> String {
        let seconds = min(253_402_300_799, max(-62_135_596_800, Int(clamping: date.timeIntervalSince1970, rounding: .down)))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondsOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"] // 1970-01-01 was a Thursday
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let monthName = months[month - 1].prefix(1).uppercased() + months[month - 1].dropFirst()
        return "\(weekday), \(two(day)) \(monthName) \(year) \(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60)) GMT"
    }

    private static func monthIndex(_ text: String) -> Int? {
        months.firstIndex(of: text.lowercased()).map { $0 + 1 }
    }

    /// Howard Hinnant's `days_from_civil`.
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Howard Hinnant's `civil_from_days`.
    private static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
