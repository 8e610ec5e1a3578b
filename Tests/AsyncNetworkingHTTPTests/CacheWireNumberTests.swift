import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AsyncNetworkingHTTP

/// Rule: a number a server writes into a cached response or a retry hint — `max-age`,
/// `s-maxage`, `max-stale`, `min-fresh`, `Age`, `Expires`/`Date`, `Retry-After` — never traps, at
/// 0, Int.max, 2^63 − 1, 2^64 − 1, negative or thousands of digits: each becomes a bounded number
/// of seconds (at most 2^31, RFC 9111 §1.2.2), a bounded delay, or is ignored.
@Suite("Cache and retry wire numbers at their extremes")
struct CacheWireNumberTests {
    static let huge = String(repeating: "9", count: 5000)
    static let extremes = [
        "0", "-1", "9223372036854775807", "9223372036854775808", "18446744073709551615", "-9223372036854775808",
        huge, "-" + huge, "+5", "1e3", "\"\(huge)\"", "", "2147483648", "2147483649",
    ]

    @Test(arguments: extremes)
    func deltaSecondsAreClampedTo2To31(value: String) {
        for name in ["max-age", "s-maxage", "max-stale", "min-fresh"] {
            let control = CacheControl("\(name)=\(value)")
            let parsed = [control.maxAge, control.sharedMaxAge, control.maxStale, control.minFresh].compactMap { $0 }
            for seconds in parsed { #expect(seconds >= 0 && seconds <= 2_147_483_648, "\(name)=\(value.prefix(40))") }
        }
    }

    @Test(arguments: extremes)
    func freshnessAndAgeStayFinite(value: String) {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var headers = HeaderFields()
        headers["Cache-Control"] = "max-age=\(value)"
        headers["Age"] = value
        headers["Date"] = "Sat, 01 Jan 0001 00:00:00 GMT"
        let lifetime = CacheFreshness.lifetime(headers: headers, statusCode: 200, responseTime: now)
        let age = CacheFreshness.currentAge(headers: headers, requestTime: now, responseTime: now, now: now)
        #expect(lifetime.isFinite && lifetime >= 0 && lifetime <= 2_147_483_648)
        #expect(age.isFinite && age >= 0)
        let head = StoredResponse.Head(
            key: "GET http://127.0.0.1/", url: URL(string: "http://127.0.0.1/")!, statusCode: 200, headers: headers,
            requestTime: now, responseTime: now, vary: [:]
        )
        var request = HeaderFields()
        request["Cache-Control"] = "max-stale, min-fresh=\(value), max-age=\(value)"
        _ = CacheDecision.decide(mode: .protocolRules, requestHeaders: request, stored: head, now: .distantFuture)
        let replayed = StoredResponse(head: head, body: Data()).httpResponse(age: age)
        #expect(Int(replayed.value(forHTTPHeaderField: "Age") ?? "") != nil)
    }

    @Test(arguments: [
        "Sat, 01 Jan 0001 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "Sun, 06 Nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 99 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov \(huge) 08:49:37 GMT", "Sun, 06 Nov 1994 \(huge):00:00 GMT", "Sun, 06 Nov -999 08:49:37 GMT",
    ])
    func expiresAndDateAtTheEdgesOfTheCalendar(text: String) {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        var headers = HeaderFields()
        headers["Expires"] = text
        headers["Date"] = "Sat, 01 Jan 0001 00:00:00 GMT"
        let lifetime = CacheFreshness.lifetime(headers: headers, statusCode: 200, responseTime: now)
        #expect(lifetime.isFinite && lifetime >= 0)
    }

    @Test(arguments: extremes + ["Wed, 21 Oct 2015 07:28:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "\u{0660}", "  42  "])
    func retryAfterIsABoundedDelayOrNothing(value: String) {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        guard let delay = RetryAfter.delay(value, now: now) else { return }
        #expect(delay >= .zero && delay <= SafeTime.ceiling, "\(value.prefix(40))")
    }
}
