@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// Rule: a response served from the HTTP cache (memory or disk tier, fresh,
/// stale or revalidated) never replays `Set-Cookie` / `Set-Cookie2`, hop-by-hop fields or proxy
/// credentials (``CacheStoredFields``): they are stripped when stored and when a `304` is merged.
@Suite struct CacheReplayedFieldsTests {
    /// The fields the route's `cookie` and `hop` items add, none of which may come from the cache.
    static let neverReplayed = [
        "Set-Cookie", "Set-Cookie2", "Connection", "X-Hop-Field", "Keep-Alive",
        "Proxy-Authenticate", "Proxy-Authentication-Info",
    ]
    static let query = ["cc": "max-age=60", "etag": "v1", "nodate": "1", "cookie": "session=secret", "hop": "1"]

    static func replayed(_ response: HTTPURLResponse) -> [String] {
        neverReplayed.filter { response.value(forHTTPHeaderField: $0) != nil }
    }

    @Test(arguments: cacheTransports)
    func aFreshHitFromMemoryHasNoSetCookieNorHopByHopFields(_ transport: SessionManager.Transport) async throws {
        let cache = makeTestCache()
        try await withCachedClient(transport, cache: cache) { (server, client) async throws in
            let first = try await client.cacheGet("sc", Self.query)
            #expect(first.cacheOutcome == .network)
            // The network response itself is the caller's, unchanged: the cookie is there once.
            #expect(first.value(forHTTPHeaderField: "Set-Cookie")?.contains("session=secret-1") == true)
            let hit = try await client.cacheGet("sc", Self.query)
            #expect(hit.cacheOutcome == .fresh)
            #expect(Self.replayed(hit.response) == [])
            #expect(hit.value(forHTTPHeaderField: "ETag") == "\"v1\"")        // end-to-end fields stay
            let url = try #require(first.response.url)
            let stored = try #require(await cache.cachedResponse(for: URLRequest(url: url)))
            #expect(Self.replayed(stored.response) == [])
            #expect(cacheHits(server, "sc").count == 1)
        }
    }

    @Test(arguments: cacheTransports)
    func theDiskTierNeverWritesNorReplaysSetCookie(_ transport: SessionManager.Transport) async throws {
        try await withCacheDirectory { directory in
            try await withCachedClient(transport, cache: nil) { (server, client) async throws in
                var writer = client
                writer.cache = HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
                #expect(try await writer.cacheGet("sd", Self.query).cacheOutcome == .network)
                // Stripped when storing: the cookie's value is nowhere in the directory.
                for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                    let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
                    #expect(!text(bytes).contains("session=secret"))
                    #expect(!text(bytes).lowercased().contains("proxy-authenticate"))
                }
                var reader = client
                reader.cache = HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
                let hit = try await reader.cacheGet("sd", Self.query)
                #expect(hit.cacheOutcome == .fresh)
                #expect(Self.replayed(hit.response) == [])
                #expect(cacheHits(server, "sd").count == 1)
            }
        }
    }

    @Test(arguments: cacheTransports)
    func aRevalidationDoesNotMergeThe304sSetCookie(_ transport: SessionManager.Transport) async throws {
        let clock = CacheTestClock()
        let cache = makeTestCache(clock: clock)
        try await withCachedClient(transport, cache: cache) { (server, client) async throws in
            _ = try await client.cacheGet("sr", Self.query)
            clock.advance(61)
            let revalidated = try await client.cacheGet("sr", Self.query)
            #expect(revalidated.cacheOutcome == .revalidated)
            #expect(revalidated.value(forHTTPHeaderField: "X-Hit") == "2")     // the 304's other fields merged
            #expect(Self.replayed(revalidated.response) == [])
            let fresh = try await client.cacheGet("sr", Self.query)
            #expect(fresh.cacheOutcome == .fresh)
            #expect(Self.replayed(fresh.response) == [])
            #expect(cacheHits(server, "sr").count == 2)
        }
    }

    /// An entry written with the fields (as an older version did) still never replays them.
    @Test func anEntryStoredWithSetCookieIsHandedOutWithout() async throws {
        let cache = makeTestCache()
        let url = try #require(URL(string: "http://127.0.0.1:9/old"))
        var headers = HeaderFields(["Cache-Control": "max-age=60", "Set-Cookie": "a=1", "Connection": "X-Hop-Field", "X-Hop-Field": "1"])
        headers["Set-Cookie2"] = "b=2"
        let head = StoredResponse.Head(
            key: CacheKey.make(method: "GET", url: url), url: url, statusCode: 200, headers: headers,
            requestTime: Date(), responseTime: Date(), vary: [:]
        )
        await cache.store(StoredResponse(head: head, body: Data("old".utf8)))
        let stored = try #require(await cache.cachedResponse(for: URLRequest(url: url)))
        #expect(Self.replayed(stored.response) == [])
        #expect(stored.response.value(forHTTPHeaderField: "Cache-Control") == "max-age=60")
    }
}
