import Foundation

/// HTTP dates as `Date`s for the cache and the client: the shared ``HTTPDate`` (RFC 9110 §5.6.7,
/// three formats parsed, IMF-fixdate written).
package enum HTTPDateParser {
    /// The date, or `nil` for anything that is not one of the three formats or names a day that
    /// does not exist (including `0` and `-1`, which `Expires` readers must treat as "already expired").
    package static func parse(_ text: String) -> Date? {
        HTTPDate.parse(text).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// Formats a date as IMF-fixdate. Dates before year 1 or after 9999 (or NaN) are clamped to
    /// that range: never a trap.
    package static func format(_ date: Date) -> String {
        HTTPDate.format(epochSeconds: Int(clamping: date.timeIntervalSince1970, rounding: .down))
    }
}
