@testable import AsyncNetworkingTestSupport
@testable import CurlTransport
@testable import AsyncNetworkingHTTP

/// RULE: no `Double` → integer or `Duration` conversion in the library traps.
/// `.infinity`, `Double(Int.max)`, `.greatestFiniteMagnitude` and other huge values mean "no
/// limit" for a timeout and the ceiling for a delay; NaN and negative timeouts a caller gives are
/// refused with ``NetworkingError/Kind/invalidTimeout`` (configuration timeouts fall back to
/// URLSession's defaults); NaN and negative values a server or a computation produces are zero.
@Suite struct SafeTimeTests {
    static let huge: [Double] = [Double(Int.max), .infinity, .greatestFiniteMagnitude, 1e300, 9.3e15, 0]
    static let invalid: [Double] = [.nan, -1, -.infinity, -Double(Int.max)]

    /// A GET of `url` with `timeoutInterval` set to `timeout`.
    static func request(_ url: URL, timeout: Double) -> URLRequest {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        return request
    }

    // MARK: The helper

    @Test func timeoutsAreNilForNoLimitAndNeverTrap() {
        for value in Self.huge + Self.invalid {
            #expect(SafeTime.timeout(seconds: value) == nil, "\(value)")
        }
        #expect(SafeTime.timeout(seconds: 0.0001) == .milliseconds(1), "rounded up, never to zero")
        #expect(SafeTime.timeout(seconds: 2.5) == .milliseconds(2500))
        #expect(SafeTime.timeout(seconds: SafeTime.ceilingSeconds - 1) == .seconds(Int64(SafeTime.ceilingSeconds) - 1))
    }

    @Test func delaysAreClampedAndNeverTrap() {
        for value in Self.huge where value > 0 {
            #expect(SafeTime.delay(seconds: value) == SafeTime.ceiling, "\(value)")
            #expect(SafeTime.delay(seconds: value, maximum: .seconds(30)) == .seconds(30), "\(value)")
        }
        for value in Self.invalid + [0] {
            #expect(SafeTime.delay(seconds: value) == .zero, "\(value)")
        }
        #expect(SafeTime.delay(seconds: 1.5) == .milliseconds(1500))
        #expect(SafeTime.delay(seconds: 10, maximum: .seconds(Int64.max)) == .seconds(10))
        #expect(SafeTime.delay(seconds: .infinity, maximum: .seconds(Int64.max)) == SafeTime.ceiling)
    }

    @Test func integerConversionsSaturate() {
        #expect(Int64(clamping: Double.infinity) == .max)
        #expect(Int64(clamping: Double(Int.max)) == .max)
        #expect(Int64(clamping: -Double.greatestFiniteMagnitude) == .min)
        #expect(Int64(clamping: Double.nan) == 0)
        #expect(Int64(clamping: 2.5) == 3)
        #expect(Int64(clamping: 2.5, rounding: .down) == 2)
        #expect(Int(clamping: 1e300) == .max)
        #expect(SafeTime.milliseconds(.seconds(Int64.max)) == .max)
        #expect(SafeTime.milliseconds(.seconds(Int64.min)) == .min)
        #expect(SafeTime.milliseconds(.milliseconds(1234)) == 1234)
        #expect(SafeTime.foundationTimeout(.infinity, fallback: 60) == SafeTime.ceilingSeconds)
        #expect(SafeTime.foundationTimeout(0, fallback: 60) == SafeTime.ceilingSeconds)
        #expect(SafeTime.foundationTimeout(.nan, fallback: 60) == 60)
        #expect(SafeTime.foundationTimeout(0.2, fallback: 60) == 1)
    }

    // MARK: Request and configuration timeouts, both transports

    @Test(arguments: cacheTransports)
    func hugeRequestTimeoutsMeanNoTimeout(_ transport: SessionManager.Transport) async throws {
        try await Self.withManager(transport) { server, manager in
            for value in Self.huge {
                let request = Self.request(server.url("/bytes/1000"), timeout: value)
                let (data, response) = try await manager.data(for: request)
                #expect(response.statusCode == 200, "timeoutInterval \(value)")
                #expect(data.count == 1000, "timeoutInterval \(value)")
            }
        }
    }

    @Test(arguments: cacheTransports)
    func nanAndNegativeRequestTimeoutsAreRefused(_ transport: SessionManager.Transport) async throws {
        try await Self.withManager(transport) { server, manager in
            for value in Self.invalid {
                let request = Self.request(server.url("/bytes/10"), timeout: value)
                do throws(NetworkingError) {
                    _ = try await manager.data(for: request)
                    Issue.record("timeoutInterval \(value) was accepted")
                } catch {
                    #expect(error.kind == .invalidTimeout, "timeoutInterval \(value): \(error)")
                }
            }
            #expect(server.requests.isEmpty, "nothing was sent")
        }
    }

    @Test(arguments: cacheTransports)
    func extremeConfigurationTimeoutsNeverTrap(_ transport: SessionManager.Transport) async throws {
        for value in Self.huge + Self.invalid {
            try await Self.withManager(transport, configure: {
                $0.timeoutIntervalForRequest = value
                $0.timeoutIntervalForResource = value
            }) { server, manager in
                let (data, response) = try await manager.data(from: server.url("/bytes/100"))
                #expect(response.statusCode == 200, "configuration timeouts \(value)")
                #expect(data.count == 100)
            }
        }
    }

    @Test(arguments: cacheTransports)
    func aClientWithAnInfiniteTimeoutWorksAndANaNOneIsRefused(_ transport: SessionManager.Transport) async throws {
        try await Self.withManager(transport) { server, manager in
            var client = HTTPClient(manager: manager, baseURL: server.baseURL)
            client.timeoutInterval = .infinity
            let echo = try await client.get("echo", as: Echo.self)
            #expect(echo.method == "GET")
            client.timeoutInterval = .nan
            do throws(NetworkingError) {
                _ = try await client.get("echo", as: Echo.self)
                Issue.record("a NaN timeout was accepted")
            } catch {
                #expect(error.kind == .invalidTimeout)
            }
        }
    }

    @Test func curlRequestsFromURLRequestsTakeHugeTimeoutsAsNone() throws {
        let url = try #require(URL(string: "http://127.0.0.1:1/"))
        for value in Self.huge + Self.invalid {
            #expect(CurlRequest(Self.request(url, timeout: value))?.options.idleTimeout == nil, "\(value)")
        }
        var request = URLRequest(url: url)
        request.timeoutInterval = 1.5
        #expect(CurlRequest(request)?.options.idleTimeout == .milliseconds(1500))
    }

    // MARK: Retry-After, backoff, cache ages, dates

    @Test func hugeRetryAfterValuesAreClampedNotTrapped() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter.delay("99999999999999999999999", now: now) == SafeTime.ceiling)
        #expect(RetryAfter.delay("9223372036854775807", now: now) == SafeTime.ceiling)
        #expect(RetryAfter.delay("Fri, 31 Dec 9999 23:59:59 GMT", now: now).map { $0 > .seconds(1_000_000) } == true)
        #expect(RetryAfter.delay("Fri, 31 Dec 9999 23:59:59 GMT", now: now).map { $0 <= SafeTime.ceiling } == true)
        #expect(RetryAfter.delay("120", now: now) == .seconds(120))
        #expect(RetryAfter.delay("Tue, 14 Nov 2023 22:13:21 GMT", now: now) == .seconds(1))
    }

    @Test func backoffWithHugeLimitsNeverTraps() {
        var generator = SystemRandomNumberGenerator()
        let unbounded = DefaultRetryPolicy(baseDelay: .seconds(Int64.max), maxDelay: .seconds(Int64.max))
        for attempt in [1, 2, 64, 10_000, Int.max] {
            let delay = unbounded.backoff(afterAttempt: attempt, using: &generator)
            #expect(delay >= .zero && delay <= SafeTime.ceiling, "attempt \(attempt)")
        }
        let zeroBase = DefaultRetryPolicy(baseDelay: .zero, maxDelay: .seconds(30))
        #expect(zeroBase.backoff(afterAttempt: Int.max, using: &generator) == .zero, "0 × 2^n stays 0")
    }

    @Test(arguments: cacheTransports)
    func hugeMaxAgeIsStoredAndFreshAndHugeAgeIsStale(_ transport: SessionManager.Transport) async throws {
        let clock = CacheTestClock()
        try await withCachedClient(transport, cache: makeTestCache(clock: clock)) { (server, client) async throws in
            let forever = ["cc": "max-age=99999999999999999999", "nodate": "1"]
            _ = try await client.cacheGet("forever", forever)
            clock.advance(1e9)
            let hit = try await client.cacheGet("forever", forever)
            #expect(hit.cacheOutcome == .fresh, "2^31 s (RFC 9111 §1.2.2), not zero")
            #expect((hit.value(forHTTPHeaderField: "Age").flatMap { Int($0) } ?? 0) >= 999_999_999, "the age, not a trap")
            #expect(cacheHits(server, "forever").count == 1)
            let aged = ["cc": "max-age=60", "age": "99999999999999999999", "nodate": "1"]
            _ = try await client.cacheGet("aged", aged)
            let again = try await client.cacheGet("aged", aged)
            #expect(again.cacheOutcome != .fresh, "an Age past any max-age is stale")
            clock.advance(.greatestFiniteMagnitude)
            _ = try await client.cacheGet("forever", forever) // an absurd clock: no trap
        }
    }

    @Test func httpDatesOfAbsurdInstantsAreClampedNotTrapped() {
        #expect(HTTPDateParser.format(Date(timeIntervalSince1970: 1e300)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDateParser.format(Date(timeIntervalSince1970: -1e300)).hasPrefix("Mon, 01 Jan "), "year 1")
        #expect(HTTPDateParser.format(Date(timeIntervalSince1970: .nan)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDateParser.format(Date(timeIntervalSince1970: 1_700_000_000)) == "Tue, 14 Nov 2023 22:13:20 GMT")
    }

    static func withManager(
        _ transport: SessionManager.Transport, configure: @Sendable (URLSessionConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (LoopbackServer, SessionManager) async throws -> Void
    ) async throws {
        try await withServerAndManager(transport: transport, configure: configure, body)
    }
}
