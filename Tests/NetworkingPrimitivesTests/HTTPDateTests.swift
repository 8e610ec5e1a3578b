import Testing
@testable import NetworkingPrimitives

/// Rule: an HTTP date is read in RFC 9110's three formats and only when it names a real instant;
/// anything else is `nil`. Written dates are IMF-fixdate and read back to the same second.
@Suite("HTTP dates and calendar arithmetic")
struct HTTPDateTests {
    /// 1994-11-06T08:49:37Z, RFC 9110's example.
    static let example = 784_111_777

    @Test func theThreeFormatsOfRFC9110ReadTheSameInstant() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Self.example)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", currentYear: 2026) == Self.example)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Self.example)
        #expect(HTTPDate.parse("sun, 06 NOV 1994 08:49:37 GMT") == Self.example, "month names are case-insensitive")
    }

    @Test func daysThatDoNotExistAreRefused() {
        #expect(HTTPDate.parse("Tue, 31 Feb 2026 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") != nil, "2024 is a leap year")
        #expect(HTTPDate.parse("Sun, 29 Feb 2100 00:00:00 GMT") == nil, "2100 is not")
        #expect(HTTPDate.parse("Wed, 31 Apr 2026 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Wed, 00 Apr 2026 00:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Wed, 01 Apr 2026 24:00:00 GMT") == nil)
    }

    @Test func aTwoDigitYearIsReadOnlyInRFC850AndByItsCenturyRule() {
        #expect(HTTPDate.parse("Sun, 06 Nov 94 08:49:37 GMT") == nil, "IMF-fixdate has four digits: not AD 94")
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 94") == nil)
        // More than 50 years ahead of the current year means the previous century.
        let in2026 = HTTPDate.parse("Monday, 01-Jan-80 00:00:00 GMT", currentYear: 2026)
        #expect(in2026 == CivilDate.daysSinceEpoch(year: 1980, month: 1, day: 1) * 86_400)
        let in2070 = HTTPDate.parse("Monday, 01-Jan-80 00:00:00 GMT", currentYear: 2070)
        #expect(in2070 == CivilDate.daysSinceEpoch(year: 2080, month: 1, day: 1) * 86_400)
        let near = HTTPDate.parse("Friday, 01-Jan-49 00:00:00 GMT", currentYear: 2026)
        #expect(near == CivilDate.daysSinceEpoch(year: 2049, month: 1, day: 1) * 86_400)
    }

    @Test func notADateIsNil() {
        for text in ["0", "-1", "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 8:49:37 GMT",
                     "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 99999 08:49:37 GMT"] {
            #expect(HTTPDate.parse(text) == nil, "\(text)")
        }
    }

    @Test func formattedDatesReadBackToTheSameSecond() {
        #expect(HTTPDate.format(epochSeconds: Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(epochSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Int.random(in: -62_135_596_800...253_402_300_799, using: &generator)
            #expect(HTTPDate.parse(HTTPDate.format(epochSeconds: seconds)) == seconds)
        }
        #expect(HTTPDate.format(epochSeconds: .max) == "Fri, 31 Dec 9999 23:59:59 GMT", "clamped, never a trap")
        #expect(HTTPDate.format(epochSeconds: .min) == "Mon, 01 Jan 0001 00:00:00 GMT")
    }

    @Test func civilDatesRoundTripAndKnowTheirMonths() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let (year, month, day) = CivilDate.date(daysSinceEpoch: days)
            #expect(CivilDate.isValid(year: year, month: month, day: day))
            #expect(CivilDate.daysSinceEpoch(year: year, month: month, day: day) == days)
        }
        #expect(CivilDate.daysIn(month: 2, year: 2000) == 29)
        #expect(CivilDate.daysIn(month: 2, year: 1900) == 28)
        #expect(!CivilDate.isValid(year: 2026, month: 13, day: 1))
    }
}
