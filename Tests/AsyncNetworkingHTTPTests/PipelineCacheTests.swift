@testable import AsyncNetworkingTestSupport

/// `send(Request)` goes through the client's HTTP cache: a fresh hit never reaches the server, a
/// stale entry is revalidated, and the retry policy still sees a failing revalidation.
@Suite("Pipeline and cache") struct PipelineCacheTests {
    @Test func aFreshHitThroughTheRequestPipelineNeverReachesTheServer() async throws {
        try await withServerAndManager { server, manager in
            var client = HTTPClient(manager: manager, baseURL: server.baseURL)
            client.cache = HTTPCache(memoryCapacity: 1 << 20)
            let request = Request<Data>.get("cache/pipeline-fresh", query: [URLQueryItem(name: "cc", value: "max-age=60")])
            let first = try await client.send(request)
            let second = try await client.send(request)
            #expect(first.cacheOutcome == .network)
            #expect(second.cacheOutcome == .fresh)
            #expect(second.data == first.data)
            #expect(cacheHits(server, "pipeline-fresh").count == 1)
        }
    }

    @Test func aStaleEntryIsRevalidatedWithIfNoneMatchThroughThePipeline() async throws {
        try await withServerAndManager { server, manager in
            var client = HTTPClient(manager: manager, baseURL: server.baseURL)
            client.cache = HTTPCache(memoryCapacity: 1 << 20)
            let request = Request<Data>.get("cache/pipeline-etag", query: [
                URLQueryItem(name: "cc", value: "no-cache"), URLQueryItem(name: "etag", value: "v7"),
            ])
            _ = try await client.send(request)
            let second = try await client.send(request)
            #expect(second.cacheOutcome == .revalidated)
            let hits = cacheHits(server, "pipeline-etag")
            #expect(hits.count == 2)
            #expect(hits.last?.header("If-None-Match") == "\"v7\"")
        }
    }
}
