import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
enum RetryAfter {
    /// The delay the header asks for, measured from `now`; `nil` when it is absent or unreadable.
    /// A date in the past is a zero delay. Huge values (more digits than an `Int64` holds, a date
    /// centuries ahead) are clamped to ``SafeTime/ceiling`` — past any sane `maxDelay`, so a policy
    /// declines them — and never trap.
    static func delay(_ header: String?, now: Date) -> Duration? {
        guard let value = header?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber) {
            guard let seconds = Int64(value) else { return SafeTime.ceiling } // all digits: only too large
            return min(SafeTime.ceiling, .seconds(seconds))
        }
        guard let date = httpDate(value) else { return nil }
        return SafeTime.delay(seconds: date.timeIntervalSince(now))
    }

    /// Parses IMF-fixdate, the obsolete RFC 850 form and asctime, all in GMT: the HTTP-date parser
    /// the cache uses (RFC 9110 §5.6.7), not a `DateFormatter` — three of those cost milliseconds
    /// per field and read zones other than GMT.
    static func httpDate(_ text: String) -> Date? {
        HTTPDateParser.parse(text)
    }
}
