import Testing
@testable import NetworkingPrimitives

/// Rule: an HTTP date read from the wire never traps: every field at its extremes (thousands of
/// digits, signs, out-of-range values) parses to an instant inside years 1–9999 or to nothing,
/// and formatting any instant (Int.min…Int.max seconds) clamps to that range.
@Suite("HTTP dates at their extremes")
struct HTTPDateExtremesTests {
    static let huge = String(repeating: "9", count: 5000)

    @Test(arguments: [
        "Sat, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:60 GMT", "Sun, 06 Nov \(huge) 08:49:37 GMT",
        "Sun, \(huge) Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 99:99:99 GMT", "Sun, -6 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-\(huge) 08:49:37 GMT", "Sunday, 06-Nov--1 08:49:37 GMT", "Sunday, +6-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 \(huge)", "Sun Nov 9223372036854775807 08:49:37 1994", "Sun, 06 Nov +994 08:49:37 GMT",
        "Sun, 06 Nov 1994 +8:+9:+7 GMT",
    ])
    func parsedDatesStayInsideTheCalendar(text: String) {
        for year in [nil, 0, 1, 9999, Int.max / 2] {
            guard let seconds = HTTPDate.parse(text, currentYear: year) else { continue }
            #expect(seconds >= -62_135_596_800 && seconds <= 253_402_300_800, "\(text.prefix(50))")
        }
    }

    @Test(arguments: [Int.min, -62_135_596_801, 0, 253_402_300_800, Int.max])
    func formattingClampsAnyInstant(seconds: Int) {
        let text = HTTPDate.format(epochSeconds: seconds)
        #expect(HTTPDate.parse(text) != nil, "\(text)")
    }
}
