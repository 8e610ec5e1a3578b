// Fuzz target: HTTP dates (RFC 9110 §5.6.7: IMF-fixdate, RFC 850 with its two-digit year,
// asctime) as the cache reads Date/Expires/Last-Modified, the cookie date algorithm (RFC 6265bis
// §5.1.1) for Expires, and Retry-After (delta-seconds of any length, or a date).
//
// Properties: no trap or sanitizer report; a parsed date lies in years 1–9999 and formatting it
// parses back to the same instant; a Retry-After wait is between 0 and the 100-year ceiling.
import Foundation
@testable import NetworkingPrimitives
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP

private let now = Date(timeIntervalSince1970: 1_700_000_000)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    _ = input.byte() // reserved: the seeds start with a choice byte
    let text = input.restText()
    for year in [nil, 1, 1970, 9999] {
        guard let seconds = HTTPDate.parse(text, currentYear: year) else { continue }
        precondition(seconds >= -62_135_596_800 && seconds <= 253_402_300_800)
        let formatted = HTTPDate.format(epochSeconds: seconds)
        // A leap second (:60) is read as the next second's start, and a format parses as itself.
        precondition(HTTPDate.parse(formatted) == min(seconds, 253_402_300_799))
    }
    if let date = HTTPDateParser.parse(text) { _ = HTTPDateParser.format(date) }
    if let date = CookieDateParser.parse(text) {
        precondition(date.timeIntervalSince1970 >= -11_644_473_600 && date.timeIntervalSince1970 < 253_402_300_800)
    }
    if let delay = RetryAfter.delay(text, now: now) { precondition(delay >= .zero && delay <= SafeTime.ceiling) }
    // Any instant at all formats (clamped to years 1–9999): eight input bytes as the seconds.
    let seconds = text.utf8.prefix(8).reduce(0) { $0 << 8 | Int($1) }
    precondition(HTTPDate.parse(HTTPDate.format(epochSeconds: seconds)) != nil)
    return 0
}
