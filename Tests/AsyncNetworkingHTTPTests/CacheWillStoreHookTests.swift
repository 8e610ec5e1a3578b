import Synchronization
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// Rule: the will-cache hook (``SessionHooks/cache``) runs wherever a
/// response is about to be stored — on Linux, on both transports, the ``HTTPCache`` of a client
/// (network responses and `304` updates, through verbs and `send(Request)`) — and its answer is
/// what is stored: a changed response or body, or nothing.
@Suite struct CacheWillStoreHookTests {
    final class Calls: Sendable {
        let count = Atomic<Int>(0)
        func add() { count.add(1, ordering: .relaxed) }
        var value: Int { count.load(ordering: .relaxed) }
    }

    @Test(arguments: cacheTransports)
    func theHookChangesWhatIsStored(_ transport: SessionManager.Transport) async throws {
        let calls = Calls()
        try await withCachedClient(transport, cache: makeTestCache()) { (server, client) async throws in
            await client.manager.setHooks(SessionHooks(cache: { proposed in
                calls.add()
                guard let response = proposed.response as? HTTPURLResponse, let url = response.url else { return proposed }
                var fields = response.allHeaderFields as? [String: String] ?? [:]
                fields["X-Hooked"] = "1"
                fields["Set-Cookie"] = "sneaky=1"        // never stored, whatever the hook says
                let changed = HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: fields)!
                return CachedURLResponse(response: changed, data: Data("changed by the hook".utf8))
            }))
            let first = try await client.cacheGet("hc", ["cc": "max-age=60"])
            #expect(text(first.data) == "hc #1")                                 // the caller's response is the network's
            #expect(first.value(forHTTPHeaderField: "X-Hooked") == nil)
            let hit = try await client.cacheGet("hc", ["cc": "max-age=60"])
            #expect(hit.cacheOutcome == .fresh)
            #expect(text(hit.data) == "changed by the hook")
            #expect(hit.value(forHTTPHeaderField: "X-Hooked") == "1")
            #expect(hit.value(forHTTPHeaderField: "Set-Cookie") == nil)
            #expect(calls.value == 1)
            #expect(cacheHits(server, "hc").count == 1)
        }
    }

    @Test(arguments: cacheTransports)
    func theHookRefusesAndNothingIsStored(_ transport: SessionManager.Transport) async throws {
        let calls = Calls()
        let cache = makeTestCache()
        try await withCachedClient(transport, cache: cache) { (server, client) async throws in
            await client.manager.setHooks(SessionHooks(cache: { _ in calls.add(); return nil }))
            _ = try await client.cacheGet("hr", ["cc": "max-age=60"])
            let second = try await client.cacheGet("hr", ["cc": "max-age=60"])
            #expect(second.cacheOutcome == .network)
            #expect(text(second.data) == "hr #2")
            #expect(calls.value == 2)
            #expect(await cache.entryCounts.memory == 0)
        }
    }

    @Test(arguments: cacheTransports)
    func theHookSeesA304UpdateAndCanRefuseIt(_ transport: SessionManager.Transport) async throws {
        let clock = CacheTestClock()
        let calls = Calls()
        let cache = makeTestCache(clock: clock)
        try await withCachedClient(transport, cache: cache) { (server, client) async throws in
            await client.manager.setHooks(SessionHooks(cache: { proposed in
                calls.add()
                return calls.value == 1 ? proposed : nil                       // keep the first, refuse the update
            }))
            let query = ["cc": "max-age=60", "etag": "v1", "nodate": "1"]
            _ = try await client.cacheGet("hu", query)
            clock.advance(61)
            let revalidated = try await client.cacheGet("hu", query)
            #expect(revalidated.cacheOutcome == .revalidated)
            #expect(text(revalidated.data) == "hu #1")
            #expect(calls.value == 2)
            #expect(await cache.entryCounts.memory == 0)                       // the refused update removed the entry
        }
    }

    @Test(arguments: cacheTransports)
    func theHookRunsForRequestsSentThroughThePipeline(_ transport: SessionManager.Transport) async throws {
        let calls = Calls()
        try await withCachedClient(transport, cache: makeTestCache()) { (server, client) async throws in
            await client.manager.setHooks(SessionHooks(cache: { _ in calls.add(); return nil }))
            let request = Request<Data>.get("cache/hp", query: [URLQueryItem(name: "cc", value: "max-age=60")])
            _ = try await client.send(request)
            let second = try await client.send(request)
            #expect(second.cacheOutcome == .network)
            #expect(calls.value == 2)
            #expect(cacheHits(server, "hp").count == 2)
        }
    }
}
