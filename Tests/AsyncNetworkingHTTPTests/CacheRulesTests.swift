@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// The pure rules of the HTTP cache (RFC 9111): parsing, freshness, storability, decisions,
/// `Vary` and 304 merging. No I/O.
@Suite struct CacheRulesTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func head(
        _ headers: [String: String], status: Int = 200, requestTime: Date = t0, responseTime: Date = t0,
        vary: [String: String] = [:]
    ) -> StoredResponse.Head {
        StoredResponse.Head(
            key: "GET http://h/x", url: URL(string: "http://h/x")!, statusCode: status, headers: HeaderFields(headers),
            requestTime: requestTime, responseTime: responseTime, vary: vary
        )
    }

    static func date(_ offset: TimeInterval) -> String { HTTPDateParser.format(t0.addingTimeInterval(offset)) }

    // MARK: Cache-Control

    @Test func parsesDirectivesCaseInsensitivelyWithQuotesAndUnknowns() {
        let control = CacheControl(#"Max-Age=60, no-cache="Set-Cookie, X", PRIVATE, foo=bar, must-revalidate, s-maxage="30""#)
        #expect(control.maxAge == 60)
        #expect(control.noCache)
        #expect(control.isPrivate)
        #expect(control.mustRevalidate)
        #expect(control.sharedMaxAge == 30)
        #expect(!control.noStore && !control.isPublic)
    }

    @Test func conflictingMaxAgeIsStaleAndBadNumbersAreZero() {
        #expect(CacheControl("max-age=60, max-age=120").maxAge == 0)
        #expect(CacheControl("max-age=60, max-age=60").maxAge == 60)
        #expect(CacheControl("max-age=-5").maxAge == 0)
        #expect(CacheControl("max-age=abc").maxAge == 0)
        #expect(CacheControl("max-age=99999999999999999999").maxAge == 2_147_483_648)
    }

    @Test func requestDirectivesAndPragma() {
        let request = CacheControl("max-stale, min-fresh=10, only-if-cached, no-store")
        #expect(request.maxStale == Int.max)
        #expect(request.minFresh == 10)
        #expect(request.onlyIfCached && request.noStore)
        #expect(CacheControl(request: HeaderFields(["pragma": "no-cache"])).noCache)
        #expect(!CacheControl(request: HeaderFields(["Pragma": "no-cache", "Cache-Control": "max-age=5"])).noCache)
    }

    // MARK: Dates

    @Test func parsesTheThreeDateFormats() {
        let expected = Date(timeIntervalSince1970: 784_111_777) // Sun, 06 Nov 1994 08:49:37 GMT
        #expect(HTTPDateParser.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDateParser.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDateParser.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDateParser.parse("0") == nil)
        #expect(HTTPDateParser.parse("Sun, 32 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDateParser.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDateParser.parse(HTTPDateParser.format(Self.t0)) == Self.t0)
    }

    // MARK: Freshness (§4.2)

    @Test func maxAgeWinsOverExpires() {
        let headers = HeaderFields(["Cache-Control": "max-age=60", "Expires": Self.date(3600), "Date": Self.date(0)])
        #expect(CacheFreshness.lifetime(headers: headers, statusCode: 200, responseTime: Self.t0) == 60)
    }

    @Test func expiresMinusDateAndInvalidExpiresIsExpired() {
        let headers = HeaderFields(["Expires": Self.date(300), "Date": Self.date(0)])
        #expect(CacheFreshness.lifetime(headers: headers, statusCode: 200, responseTime: Self.t0.addingTimeInterval(50)) == 300)
        // Without Date, the time received stands in for it.
        let noDate = HeaderFields(["Expires": Self.date(300)])
        #expect(CacheFreshness.lifetime(headers: noDate, statusCode: 200, responseTime: Self.t0.addingTimeInterval(100)) == 200)
        #expect(CacheFreshness.lifetime(headers: HeaderFields(["Expires": "0"]), statusCode: 200, responseTime: Self.t0) == 0)
    }

    @Test func heuristicIsTenPercentOfLastModifiedAgeCappedAtADay() {
        let recent = HeaderFields(["Date": Self.date(0), "Last-Modified": Self.date(-1000)])
        #expect(CacheFreshness.lifetime(headers: recent, statusCode: 200, responseTime: Self.t0) == 100)
        let old = HeaderFields(["Date": Self.date(0), "Last-Modified": Self.date(-100 * 86_400)])
        #expect(CacheFreshness.lifetime(headers: old, statusCode: 200, responseTime: Self.t0) == 86_400)
        // Not for a status that is not cacheable by default, unless public.
        #expect(CacheFreshness.lifetime(headers: recent, statusCode: 500, responseTime: Self.t0) == 0)
        var publicHeaders = recent
        publicHeaders["Cache-Control"] = "public"
        #expect(CacheFreshness.lifetime(headers: publicHeaders, statusCode: 500, responseTime: Self.t0) == 100)
    }

    @Test func currentAgeFollowsSection4_2_3() {
        // Date 10 s before receipt, Age 30, a 2 s round trip, 5 s resident.
        let headers = HeaderFields(["Date": Self.date(-10), "Age": "30"])
        let age = CacheFreshness.currentAge(
            headers: headers, requestTime: Self.t0.addingTimeInterval(-2), responseTime: Self.t0, now: Self.t0.addingTimeInterval(5)
        )
        #expect(age == 37) // max(10, 30 + 2) + 5
        // A Date in the future never makes the age negative.
        let future = HeaderFields(["Date": Self.date(500)])
        #expect(CacheFreshness.currentAge(headers: future, requestTime: Self.t0, responseTime: Self.t0, now: Self.t0) == 0)
    }

    // MARK: Storability (§3)

    static func refusal(_ response: [String: String], status: Int = 200, request: [String: String] = [:], method: String = "GET") -> String? {
        CacheStorability.refusal(
            method: method, requestHeaders: HeaderFields(request), statusCode: status,
            responseHeaders: HeaderFields(response), responseTime: t0
        )
    }

    @Test func storabilityRules() {
        #expect(Self.refusal(["Cache-Control": "max-age=60"]) == nil)
        #expect(Self.refusal(["Cache-Control": "private, max-age=60"]) == nil)
        #expect(Self.refusal(["ETag": "\"a\""]) == nil)                                    // validator only
        #expect(Self.refusal(["Cache-Control": "no-cache", "ETag": "\"a\""]) == nil)
        #expect(Self.refusal(["Cache-Control": "max-age=60", "Vary": "Accept"]) == nil)
        #expect(Self.refusal(["Cache-Control": "no-store, max-age=60"]) != nil)
        #expect(Self.refusal(["Cache-Control": "max-age=60"], request: ["Cache-Control": "no-store"]) != nil)
        #expect(Self.refusal(["Cache-Control": "max-age=60"], method: "POST") != nil)
        #expect(Self.refusal(["Cache-Control": "max-age=60"], status: 206) != nil)
        #expect(Self.refusal(["Cache-Control": "max-age=60", "Vary": "*"]) != nil)
        #expect(Self.refusal([:]) != nil)                                                   // never usable
        #expect(Self.refusal(["ETag": "\"a\""], status: 500) != nil)                         // not cacheable by default
        #expect(Self.refusal(["Cache-Control": "max-age=60"], status: 500) == nil)          // explicit lifetime
        #expect(Self.refusal(["Cache-Control": "max-age=60"], status: 404) == nil)
    }

    @Test func authorizationNeedsPublicSMaxAgeOrMustRevalidate() {
        let auth = ["Authorization": "Bearer secret"]
        #expect(Self.refusal(["Cache-Control": "max-age=60"], request: auth) != nil)
        #expect(Self.refusal(["Cache-Control": "private, max-age=60"], request: auth) != nil)
        #expect(Self.refusal(["Cache-Control": "public, max-age=60"], request: auth) == nil)
        #expect(Self.refusal(["Cache-Control": "s-maxage=60, max-age=60"], request: auth) == nil)
        #expect(Self.refusal(["Cache-Control": "s-maxage=60"], request: auth) != nil) // s-maxage is not for a private cache
        #expect(Self.refusal(["Cache-Control": "must-revalidate, max-age=60"], request: auth) == nil)
    }

    // MARK: Decisions

    static func decide(
        _ stored: StoredResponse.Head?, at offset: TimeInterval, mode: CacheRequestMode = .protocolRules, request: [String: String] = [:]
    ) -> CacheDecision {
        CacheDecision.decide(mode: mode, requestHeaders: HeaderFields(request), stored: stored, now: t0.addingTimeInterval(offset))
    }

    @Test func freshThenRevalidateWithBothValidatorsThenFetchWithout() {
        let stored = Self.head(["Cache-Control": "max-age=60", "Date": Self.date(0), "ETag": "\"v1\"", "Last-Modified": Self.date(-10)])
        #expect(Self.decide(stored, at: 59) == .fresh)
        #expect(Self.decide(stored, at: 61) == .revalidate(["If-None-Match": "\"v1\"", "If-Modified-Since": Self.date(-10)]))
        let bare = Self.head(["Cache-Control": "max-age=60", "Date": Self.date(0)])
        #expect(Self.decide(bare, at: 61) == .fetch)
        #expect(Self.decide(nil, at: 0) == .fetch)
    }

    @Test func ageHeaderAndDateCountTowardsAge() {
        let aged = Self.head(["Cache-Control": "max-age=60", "Date": Self.date(0), "Age": "50", "ETag": "\"a\""])
        #expect(Self.decide(aged, at: 9) == .fresh)
        #expect(Self.decide(aged, at: 11) != .fresh)
        let oldDate = Self.head(["Cache-Control": "max-age=60", "Date": Self.date(-70), "ETag": "\"a\""])
        #expect(Self.decide(oldDate, at: 0) != .fresh)
        let expires = Self.head(["Expires": Self.date(30), "Date": Self.date(0), "ETag": "\"a\""])
        #expect(Self.decide(expires, at: 29) == .fresh)
        #expect(Self.decide(expires, at: 31) != .fresh)
    }

    @Test func noCacheAlwaysRevalidates() {
        let stored = Self.head(["Cache-Control": "no-cache, max-age=600", "Date": Self.date(0), "ETag": "\"a\""])
        #expect(Self.decide(stored, at: 0) == .revalidate(["If-None-Match": "\"a\""]))
        let fresh = Self.head(["Cache-Control": "max-age=600", "Date": Self.date(0), "ETag": "\"a\""])
        #expect(Self.decide(fresh, at: 0, mode: .revalidate) == .revalidate(["If-None-Match": "\"a\""]))
    }

    @Test func requestDirectivesNarrowOrWidenFreshness() {
        let stored = Self.head(["Cache-Control": "max-age=60", "Date": Self.date(0), "ETag": "\"a\""])
        #expect(Self.decide(stored, at: 20, request: ["Cache-Control": "max-age=10"]) != .fresh)
        #expect(Self.decide(stored, at: 40, request: ["Cache-Control": "min-fresh=30"]) != .fresh)
        #expect(Self.decide(stored, at: 80, request: ["Cache-Control": "max-stale=30"]) == .stale)
        #expect(Self.decide(stored, at: 100, request: ["Cache-Control": "max-stale=30"]) != .stale)
        let mustRevalidate = Self.head(["Cache-Control": "max-age=60, must-revalidate", "Date": Self.date(0), "ETag": "\"a\""])
        #expect(Self.decide(mustRevalidate, at: 80, request: ["Cache-Control": "max-stale"]) != .stale)
    }

    @Test func onlyIfCachedAndPolicies() {
        let stored = Self.head(["Cache-Control": "max-age=60", "Date": Self.date(0), "ETag": "\"a\""])
        #expect(Self.decide(stored, at: 10, request: ["Cache-Control": "only-if-cached"]) == .fresh)
        #expect(Self.decide(stored, at: 100, request: ["Cache-Control": "only-if-cached"]) == .unavailable)
        #expect(Self.decide(nil, at: 0, request: ["Cache-Control": "only-if-cached"]) == .unavailable)
        #expect(Self.decide(stored, at: 100, mode: .storedOnly) == .stale)
        #expect(Self.decide(nil, at: 0, mode: .storedOnly) == .unavailable)
        #expect(Self.decide(stored, at: 100, mode: .storedElseLoad) == .stale)
        #expect(Self.decide(nil, at: 0, mode: .storedElseLoad) == .fetch)
        #expect(Self.decide(stored, at: 0, mode: .reload) == .fetch)
    }

    @Test func requestModes() {
        var request = URLRequest(url: URL(string: "http://h/x")!)
        #expect(CacheRequestMode(request) == .protocolRules)
        request.cachePolicy = .reloadIgnoringLocalCacheData
        #expect(CacheRequestMode(request) == .reload)
        request.cachePolicy = .returnCacheDataDontLoad
        #expect(CacheRequestMode(request) == .storedOnly)
        request.cachePolicy = .returnCacheDataElseLoad
        #expect(CacheRequestMode(request) == .storedElseLoad)
        request.cachePolicy = .useProtocolCachePolicy
        request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
        #expect(CacheRequestMode(request) == .revalidate)
        request.setValue("\"x\"", forHTTPHeaderField: "If-None-Match")
        #expect(CacheRequestMode(request) == .bypass)
        var post = URLRequest(url: URL(string: "http://h/x")!)
        post.httpMethod = "POST"
        #expect(CacheRequestMode(post) == .bypass)
    }

    // MARK: Vary (§4.1)

    @Test func varyMatchesNormalizedValuesAndAbsence() {
        let fields = VaryMatching.fields(of: HeaderFields(["Vary": "Accept-Language, accept"]))
        #expect(fields == ["accept-language", "accept"])
        let stored = VaryMatching.fingerprints(of: HeaderFields(["Accept-Language": "en, fr"]), fields: fields!)
        #expect(VaryMatching.matches(stored, request: HeaderFields(["accept-language": "en,fr"])))
        #expect(!VaryMatching.matches(stored, request: HeaderFields(["Accept-Language": "de"])))
        #expect(!VaryMatching.matches(stored, request: HeaderFields(["Accept-Language": "en, fr", "Accept": "text/html"])))
        #expect(!VaryMatching.matches(stored, request: HeaderFields()))
        #expect(VaryMatching.fields(of: HeaderFields(["Vary": "Accept, *"])) == nil)
        // Fingerprints, not values: a varying credential is not kept in clear.
        let secret = VaryMatching.fingerprints(of: HeaderFields(["Authorization": "Bearer hunter2"]), fields: ["authorization"])
        #expect(!secret.values.contains { $0.contains("hunter2") })
        let mismatch = Self.head(["Cache-Control": "max-age=60", "Date": Self.date(0)], vary: stored)
        #expect(Self.decide(mismatch, at: 0, request: ["Accept-Language": "de"]) == .fetch)
        #expect(Self.decide(mismatch, at: 0, request: ["Accept-Language": "en,fr"]) == .fresh)
    }

    // MARK: 304 (§3.2, §4.3.4)

    @Test func notModifiedUpdatesHeadersButNotFramingAndRestartsAge() {
        let stored = Self.head([
            "Cache-Control": "max-age=60", "Date": Self.date(0), "Age": "40", "ETag": "\"v1\"",
            "Content-Length": "5", "Content-Type": "text/plain", "X-Version": "1",
        ])
        let notModified = HeaderFields([
            "Cache-Control": "max-age=120", "ETag": "W/\"v1\"", "X-Version": "2", "Content-Length": "0", "Connection": "X-Hop", "X-Hop": "1",
        ])
        #expect(CacheRevalidation.validates(notModified, stored: stored.headers))
        let later = Self.t0.addingTimeInterval(100)
        let updated = CacheRevalidation.updated(stored, with: notModified, requestTime: later, responseTime: later)
        #expect(updated.headers["Cache-Control"] == "max-age=120")
        #expect(updated.headers["X-Version"] == "2")
        #expect(updated.headers["Content-Length"] == "5")
        #expect(updated.headers["Content-Type"] == "text/plain")
        #expect(updated.headers["X-Hop"] == nil)
        #expect(updated.headers["Date"] == nil && updated.headers["Age"] == nil)
        #expect(updated.responseTime == later)
        #expect(CacheFreshness.currentAge(updated, now: later) == 0)
        #expect(Self.decide(updated, at: 100 + 119) == .fresh)
    }

    @Test func notModifiedForAnotherValidatorDoesNotApply() {
        let stored = HeaderFields(["ETag": "\"v1\"", "Last-Modified": Self.date(-10)])
        #expect(!CacheRevalidation.validates(HeaderFields(["ETag": "\"v2\""]), stored: stored))
        #expect(CacheRevalidation.validates(HeaderFields(["Last-Modified": Self.date(-10)]), stored: stored))
        #expect(!CacheRevalidation.validates(HeaderFields(["Last-Modified": Self.date(-5)]), stored: stored))
        #expect(CacheRevalidation.validates(HeaderFields(), stored: stored))
    }
}
