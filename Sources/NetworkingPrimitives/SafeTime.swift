import Foundation

/// Conversions from floating-point seconds (`TimeInterval`, header values, computed backoffs) to
/// `Duration` and to integers that **never trap**.
///
/// The rule (issue 20, item 6): no `Double` → integer or `Duration` conversion in the library may
/// trap. `.infinity`, `Double(Int.max)`, `.greatestFiniteMagnitude` and any value past
/// ``ceilingSeconds`` mean "no limit" where the value is a timeout or a limit, and are clamped to
/// the ceiling where the value is a delay. NaN and negative values never reach a conversion: where
/// the user gave them they are refused with a typed error (``RequestValidation``) or replaced by
/// the documented default; where a server or a computation produced them they become zero.
package enum SafeTime {
    /// The longest span any conversion yields: 100 years (3,155,760,000 s). Its nanoseconds
    /// (≈ 3.2 × 10^18) and milliseconds still fit an `Int64`, and `DispatchTime.now()` plus it
    /// does not overflow.
    package static let ceilingSeconds: Double = 3_155_760_000

    /// ``ceilingSeconds`` as a `Duration`.
    package static let ceiling: Duration = .seconds(3_155_760_000)

    /// A timeout in seconds as a `Duration`, or `nil` for "no timeout": NaN, zero, negative,
    /// infinite and anything at or past ``ceilingSeconds`` are all `nil`. Finite positive values
    /// are rounded up to the next millisecond (never down to zero).
    package static func timeout(seconds: Double) -> Duration? {
        guard seconds > 0, seconds < ceilingSeconds else { return nil } // false for NaN
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// A delay in seconds as a `Duration` in `0...maximum`: NaN and negative values are zero,
    /// infinite and huge ones `maximum` (itself at most ``ceiling``). Millisecond resolution,
    /// rounded up.
    package static func delay(seconds: Double, maximum: Duration = ceiling) -> Duration {
        let cap = min(maximum, ceiling)
        guard seconds > 0 else { return .zero } // NaN, zero and negative
        guard seconds < SafeTime.seconds(cap) else { return cap }
        return min(cap, .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }

    /// A timeout as FoundationNetworking can take it without trapping (it computes
    /// `Int(seconds) * 1000`, and a value below one second becomes a 1 ms timer): zero, infinite
    /// and huge values become ``ceilingSeconds`` (no timeout, as on curl), fractions round up to
    /// whole seconds, NaN and negative values become `fallback`.
    package static func foundationTimeout(_ seconds: Double, fallback: Double) -> Double {
        guard seconds >= 0 else { return fallback } // NaN and negative
        guard seconds > 0, seconds < ceilingSeconds else { return ceilingSeconds }
        return seconds.rounded(.up)
    }

    /// A `Duration` as (fractional) seconds, exact enough for delays and logs.
    package static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A `Duration` as whole milliseconds, saturating at `Int64.max` / `Int64.min` (never traps).
    package static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflow2) = whole.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return total
    }
}

extension Int64 {
    /// `value` rounded with `rule`, clamped to `Int64`'s range; NaN is `0`. Never traps.
    package init(clamping value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        let rounded = value.rounded(rule)
        if rounded.isNaN {
            self = 0
        } else if rounded >= 0x1p63 { // 2^63, the first Double past Int64.max
            self = .max
        } else if rounded <= -0x1p63 {
            self = .min
        } else {
            self = Int64(rounded)
        }
    }
}

extension Int {
    /// `value` rounded with `rule`, clamped to `Int`'s range; NaN is `0`. Never traps.
    package init(clamping value: Double, rounding rule: FloatingPointRoundingRule = .toNearestOrAwayFromZero) {
        self = Int(Int64(clamping: value, rounding: rule))
    }
}
