import Foundation

/// The cookie date algorithm of RFC 6265bis §5.1.1: lenient on purpose, since servers write
/// `Expires` in every HTTP date form and many more (`Wed, 21-Oct-2015 07:28:00 GMT`, two-digit
/// years, missing weekdays, extra words). Pure; no formatter, no locale.
///
/// It reads every form ``HTTPDateParser`` (the cache's strict RFC 9110 parser) reads, to the same
/// instant, and more; it is not built on it because the cookie rules differ (two-digit years in
/// any form, years before 1601 and impossible days such as `Feb 31` refused).
enum CookieDateParser {
    /// The date, or `nil` when the text lacks a time, a day of month, a month or a year, or one of
    /// them is out of range (a year before 1601, `Feb 30`). Two-digit years 70–99 are 19xx, 00–69 20xx.
    static func parse(_ text: String) -> Date? {
        var time: (Int, Int, Int)?, day: Int?, month: Int?, year: Int?
        for token in tokens(of: text) {
            if time == nil, let found = parseTime(token) { time = found; continue }
            if day == nil, let found = leadingDigits(token, 1...2) { day = found; continue }
            if month == nil, let found = parseMonth(token) { month = found; continue }
            if year == nil, let found = leadingDigits(token, 2...4) { year = found; continue }
        }
        guard let (hour, minute, second) = time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, year <= 9999, hour <= 23, minute <= 59, second <= 59,
              day <= CivilDate.daysIn(month: month, year: year) else { return nil }
        let seconds = CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Splits at the delimiters of §5.1.1 (%x09, %x20-2F, %x3B-40, %x5B-60, %x7B-7E).
    private static func tokens(of text: String) -> [Substring.UTF8View] {
        text.utf8.split { byte in
            byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
                || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
        }.map { Substring($0).utf8 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    /// `count` leading digits followed by nothing or a non-digit.
    private static func leadingDigits(_ token: Substring.UTF8View, _ count: ClosedRange<Int>) -> Int? {
        let digits = token.prefix { isDigit($0) }
        guard count.contains(digits.count) else { return nil }
        return digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `1*2DIGIT ":" 1*2DIGIT ":" 1*2DIGIT ( non-digit *OCTET )`.
    private static func parseTime(_ token: Substring.UTF8View) -> (Int, Int, Int)? {
        var parts: [Int] = []
        var current = 0, digits = 0
        for byte in token {
            if isDigit(byte) {
                digits += 1
                guard digits <= 2 else { return nil }
                current = current * 10 + Int(byte - 0x30)
            } else if byte == UInt8(ascii: ":"), parts.count < 2 {
                guard digits > 0 else { return nil }
                parts.append(current)
                current = 0
                digits = 0
            } else {
                break
            }
        }
        guard parts.count == 2, digits > 0 else { return nil }
        return (parts[0], parts[1], current)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func parseMonth(_ token: Substring.UTF8View) -> Int? {
        guard token.count >= 3 else { return nil }
        return months.firstIndex(of: String(Substring(token).prefix(3)).lowercased()).map { $0 + 1 }
    }
}
