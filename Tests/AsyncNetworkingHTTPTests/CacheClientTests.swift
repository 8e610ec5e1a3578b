@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// The cache behind ``HTTPClient`` against a loopback server, on both transports: what reaches
/// the server (counted and recorded by `/cache/NAME`) and what the caller gets.
@Suite struct CacheClientTests {
    @Test(arguments: cacheTransports)
    func staleResponseIsRevalidatedWithIfNoneMatchAnd304IsServedFromTheCache(_ transport: SessionManager.Transport) async throws {
        let clock = CacheTestClock()
        try await withCachedClient(transport, cache: makeTestCache(clock: clock)) { (server, client) async throws in
            // No Date: the test's clock moves, the server's does not.
            let query = ["cc": "max-age=60", "etag": "v1", "nodate": "1"]
            let first = try await client.cacheGet("r", query)
            #expect(first.cacheOutcome == .network)
            #expect(text(first.data) == "r #1")
            clock.advance(61)
            let second = try await client.cacheGet("r", query)
            #expect(second.cacheOutcome == .revalidated)
            #expect(second.statusCode == 200)
            #expect(text(second.data) == "r #1")                              // the stored body
            #expect(second.value(forHTTPHeaderField: "X-Hit") == "2")           // the 304's header fields
            let seen = cacheHits(server, "r")
            #expect(seen.count == 2)
            #expect(seen.first?.header("If-None-Match") == nil)
            #expect(seen.last?.header("If-None-Match") == "\"v1\"")
            // The 304 restarted the age: fresh again without asking.
            let third = try await client.cacheGet("r", query)
            #expect(third.cacheOutcome == .fresh)
            #expect(cacheHits(server, "r").count == 2)
        }
    }

    @Test(arguments: cacheTransports)
    func freshHitNeverReachesTheServer(_ transport: SessionManager.Transport) async throws {
        let clock = CacheTestClock()
        try await withCachedClient(transport, cache: makeTestCache(clock: clock)) { (server, client) async throws in
            _ = try await client.cacheGet("f", ["cc": "max-age=60"])
            clock.advance(30)
            let hit = try await client.cacheGet("f", ["cc": "max-age=60"])
            #expect(hit.cacheOutcome == .fresh)
            #expect(hit.cacheOutcome?.isFromCache == true)
            #expect(text(hit.data) == "f #1")
            #expect(hit.metrics.bytesReceived == 0)
            #expect(Int(hit.value(forHTTPHeaderField: "Age") ?? "") ?? -1 >= 30)
            #expect(cacheHits(server, "f").count == 1)
        }
    }

    @Test(arguments: cacheTransports)
    func expiresAgeAndDateDecideFreshness(_ transport: SessionManager.Transport) async throws {
        let clock = CacheTestClock()
        try await withCachedClient(transport, cache: makeTestCache(clock: clock)) { (server, client) async throws in
            // Expires 100 s after Date: fresh at +50, revalidated (Last-Modified) at +150.
            // An absolute Last-Modified, so a revalidation a second later still matches.
            let modified = Int(Date().timeIntervalSince1970) - 3600
            let expires = ["expires": "100", "lm": "@\(modified)"]
            _ = try await client.cacheGet("e", expires)
            clock.advance(50)
            #expect(try await client.cacheGet("e", expires).cacheOutcome == .fresh)
            clock.advance(100)
            #expect(try await client.cacheGet("e", expires).cacheOutcome == .revalidated)
            #expect(cacheHits(server, "e").last?.header("If-Modified-Since") != nil)
            // Age: 100 from upstream makes max-age=60 stale on arrival.
            let aged = ["cc": "max-age=60", "age": "100", "etag": "a"]
            _ = try await client.cacheGet("a", aged)
            #expect(try await client.cacheGet("a", aged).cacheOutcome == .revalidated)
            // A Date 100 s in the past does the same.
            let dated = ["cc": "max-age=60", "date": "-100", "etag": "d"]
            _ = try await client.cacheGet("d", dated)
            #expect(try await client.cacheGet("d", dated).cacheOutcome == .revalidated)
            // Expires already past (an invalid Expires too): stale at once.
            let expired = ["expires": "bad", "etag": "x"]
            _ = try await client.cacheGet("x", expired)
            #expect(try await client.cacheGet("x", expired).cacheOutcome == .revalidated)
        }
    }

    @Test(arguments: cacheTransports)
    func noStoreIsNeverStored(_ transport: SessionManager.Transport) async throws {
        let cache = makeTestCache()
        try await withCachedClient(transport, cache: cache) { (server, client) async throws in
            for _ in 0..<2 {
                #expect(try await client.cacheGet("n", ["cc": "no-store, max-age=60", "etag": "n"]).cacheOutcome == .network)
            }
            #expect(await cache.entryCounts.memory == 0)
            let seen = cacheHits(server, "n")
            #expect(seen.count == 2)
            #expect(seen.allSatisfy { $0.header("If-None-Match") == nil })
        }
    }

    @Test(arguments: cacheTransports)
    func noCacheAlwaysRevalidates(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: makeTestCache()) { (server, client) async throws in
            let query = ["cc": "no-cache, max-age=600", "etag": "nc"]
            #expect(try await client.cacheGet("nc", query).cacheOutcome == .network)
            #expect(try await client.cacheGet("nc", query).cacheOutcome == .revalidated)
            #expect(try await client.cacheGet("nc", query).cacheOutcome == .revalidated)
            let seen = cacheHits(server, "nc")
            #expect(seen.count == 3)
            #expect(seen.dropFirst().allSatisfy { $0.header("If-None-Match") == "\"nc\"" })
        }
    }

    @Test(arguments: cacheTransports)
    func varyMismatchIsAMissAndReplacesTheVariant(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: makeTestCache()) { (server, client) async throws in
            let query = ["cc": "max-age=60", "vary": "Accept-Language"]
            let english = try await client.cacheGet("v", query, headers: ["Accept-Language": "en"])
            #expect(english.cacheOutcome == .network)
            #expect(try await client.cacheGet("v", query, headers: ["Accept-Language": "en"]).cacheOutcome == .fresh)
            let french = try await client.cacheGet("v", query, headers: ["Accept-Language": "fr"])
            #expect(french.cacheOutcome == .network)
            #expect(text(french.data) == "v #2\nAccept-Language: fr")
            let again = try await client.cacheGet("v", query, headers: ["Accept-Language": "fr"])
            #expect(again.cacheOutcome == .fresh)
            #expect(text(again.data) == "v #2\nAccept-Language: fr")
            #expect(cacheHits(server, "v").count == 2)
        }
    }

    @Test(arguments: cacheTransports)
    func onlyIfCachedMissIsATypedErrorAndSendsNothing(_ transport: SessionManager.Transport) async throws {
        let clock = CacheTestClock()
        try await withCachedClient(transport, cache: makeTestCache(clock: clock)) { (server, client) async throws in
            let error = await expectNetworkingError { try await client.cacheGet("o", ["cc": "max-age=60"], policy: .returnCacheDataDontLoad) }
            #expect(error?.kind == .transport(.resourceUnavailable))
            let header = await expectNetworkingError {
                try await client.cacheGet("o", ["cc": "max-age=60"], headers: ["Cache-Control": "only-if-cached"])
            }
            #expect(header?.kind == .transport(.resourceUnavailable))
            #expect(cacheHits(server, "o").isEmpty)
            // Once stored: returned even when stale, still without the network.
            _ = try await client.cacheGet("o", ["cc": "max-age=60"])
            clock.advance(120)
            let stale = try await client.cacheGet("o", ["cc": "max-age=60"], policy: .returnCacheDataDontLoad)
            #expect(stale.cacheOutcome == .stale)
            #expect(text(stale.data) == "o #1")
            let elseLoad = try await client.cacheGet("o", ["cc": "max-age=60"], policy: .returnCacheDataElseLoad)
            #expect(elseLoad.cacheOutcome == .stale)
            #expect(cacheHits(server, "o").count == 1)
        }
    }

    @Test(arguments: cacheTransports)
    func reloadBypassesTheStoredResponseAndStoresTheNewOne(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: makeTestCache()) { (server, client) async throws in
            let query = ["cc": "max-age=60", "etag": "rl"]
            _ = try await client.cacheGet("rl", query)
            let reloaded = try await client.cacheGet("rl", query, policy: .reloadIgnoringLocalCacheData)
            #expect(reloaded.cacheOutcome == .network)
            #expect(text(reloaded.data) == "rl #2")
            #expect(cacheHits(server, "rl").last?.header("If-None-Match") == nil)
            let next = try await client.cacheGet("rl", query)
            #expect(next.cacheOutcome == .fresh)
            #expect(text(next.data) == "rl #2")
            // .reloadRevalidatingCacheData: always asks, with the validator.
            #expect(try await client.cacheGet("rl", query, policy: .reloadRevalidatingCacheData).cacheOutcome == .revalidated)
            #expect(cacheHits(server, "rl").count == 3)
        }
    }

    @Test(arguments: cacheTransports)
    func changedResourceReplacesTheStoredOne(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: makeTestCache()) { (server, client) async throws in
            let query = ["cc": "no-cache", "etag": "v{v}"]
            _ = try await client.cacheGet("ch", query)
            server.setResourceVersion(1)
            let changed = try await client.cacheGet("ch", query)
            #expect(changed.cacheOutcome == .network)
            #expect(text(changed.data) == "ch #2")
            #expect(cacheHits(server, "ch").last?.header("If-None-Match") == "\"v0\"")
            #expect(try await client.cacheGet("ch", query).cacheOutcome == .revalidated)
            #expect(cacheHits(server, "ch").last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test(arguments: cacheTransports)
    func unsafeMethodInvalidatesAndAuthorizationNeedsPublic(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: makeTestCache()) { (server, client) async throws in
            _ = try await client.cacheGet("u", ["cc": "max-age=60"])
            _ = try await client.request(.post, "cache/u?cc=max-age%3D60")
            #expect(try await client.cacheGet("u", ["cc": "max-age=60"]).cacheOutcome == .network)
            #expect(cacheHits(server, "u").count == 3)

            let auth: HTTPHeaders = ["Authorization": "Bearer token"]
            _ = try await client.cacheGet("p", ["cc": "max-age=60"], headers: auth)
            #expect(try await client.cacheGet("p", ["cc": "max-age=60"], headers: auth).cacheOutcome == .network)
            _ = try await client.cacheGet("q", ["cc": "public, max-age=60"], headers: auth)
            #expect(try await client.cacheGet("q", ["cc": "public, max-age=60"], headers: auth).cacheOutcome == .fresh)
        }
    }

    @Test(arguments: cacheTransports)
    func withoutACacheTheTransportNeitherCachesNorAddsConditions(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: nil) { (server, client) async throws in
            let query = ["cc": "max-age=600", "etag": "t", "lm": "-3600"]
            for _ in 0..<3 {
                let response = try await client.cacheGet("t", query)
                #expect(response.cacheOutcome == nil)
                #expect(response.statusCode == 200)
            }
            let seen = cacheHits(server, "t")
            #expect(seen.count == 3)
            #expect(seen.allSatisfy { $0.header("If-None-Match") == nil && $0.header("If-Modified-Since") == nil })
        }
    }

    static let withURLCache: @Sendable (URLSessionConfiguration) -> Void = {
        $0.urlCache = URLCache(memoryCapacity: 1 << 20, diskCapacity: 0, diskPath: nil)
        $0.requestCachePolicy = .useProtocolCachePolicy
    }

    #if canImport(FoundationNetworking)
    /// The reason for this cache: FoundationNetworking stores nothing for the manager's transfers,
    /// even with a `URLCache` in the configuration and `.useProtocolCachePolicy`.
    @Test func urlSessionOnLinuxDoesNotCacheEvenWithAURLCache() async throws {
        try await withCachedClient(.urlSession, cache: nil, configure: Self.withURLCache) { (server, client) async throws in
            for _ in 0..<3 { _ = try await client.cacheGet("lx", ["cc": "max-age=600", "etag": "lx"]) }
            let seen = cacheHits(server, "lx")
            #expect(seen.count == 3)
            #expect(seen.allSatisfy { $0.header("If-None-Match") == nil })
        }
    }
    #endif

    /// With a `URLCache` configured too, the conditions HTTPCache adds reach the server untouched
    /// and its 304 comes back to HTTPCache (the attempt's request says `.reloadIgnoringLocalCacheData`).
    @Test func httpCacheRevalidatesThroughAURLSessionThatHasAURLCache() async throws {
        try await withCachedClient(.urlSession, cache: makeTestCache(), configure: Self.withURLCache) { (server, client) async throws in
            let query = ["cc": "no-cache", "etag": "uc"]
            #expect(try await client.cacheGet("uc", query).cacheOutcome == .network)
            let second = try await client.cacheGet("uc", query)
            #expect(second.cacheOutcome == .revalidated)
            #expect(text(second.data) == "uc #1")
            #expect(cacheHits(server, "uc").count == 2)
            #expect(cacheHits(server, "uc").last?.header("If-None-Match") == "\"uc\"")
        }
    }
}
