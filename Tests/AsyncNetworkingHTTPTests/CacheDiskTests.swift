@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingHTTP

/// The tiers behind ``HTTPClient``: the disk across cache instances, damage, byte limits, and
/// many tasks sharing one cache.
@Suite struct CacheDiskTests {
    @Test(arguments: cacheTransports)
    func diskEntriesSurviveANewCacheOnTheSameDirectory(_ transport: SessionManager.Transport) async throws {
        try await withCacheDirectory { directory in
            try await withCachedClient(transport, cache: nil) { (server, client) async throws in
                var first = client
                first.cache = HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
                #expect(try await first.cacheGet("d", ["cc": "max-age=600"]).cacheOutcome == .network)
                var second = client
                second.cache = HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: directory)
                let hit = try await second.cacheGet("d", ["cc": "max-age=600"])
                #expect(hit.cacheOutcome == .fresh)
                #expect(text(hit.data) == "d #1")
                #expect(cacheHits(server, "d").count == 1)
                // No URL text in the directory: one file, named by a hash.
                let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                #expect(names.count == 1 && names.allSatisfy(DiskCacheTier.isEntryName))
            }
        }
    }

    @Test func corruptDiskEntryIsAMissNotACrash() async throws {
        try await withCacheDirectory { directory in
            try await withCachedClient(.platformDefault, cache: nil) { (server, client) async throws in
                var writer = client
                writer.cache = HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
                _ = try await writer.cacheGet("c", ["cc": "max-age=600", "size": "4000"])
                let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                let file = directory.appendingPathComponent(try #require(names.first))
                var bytes = try Data(contentsOf: file)
                bytes[bytes.count / 2] ^= 0x01
                try bytes.write(to: file)
                // The same instance (memory tier off) and a new one both read the damaged file.
                let again = try await writer.cacheGet("c", ["cc": "max-age=600", "size": "4000"])
                #expect(again.cacheOutcome == .network)
                #expect(text(again.data).hasPrefix("c #2"))
                try Data([0x41, 0x4E]).write(to: file)
                var reader = client
                reader.cache = HTTPCache(memoryCapacity: 0, diskCapacity: 1 << 20, directory: directory)
                let fresh = try await reader.cacheGet("c", ["cc": "max-age=600", "size": "4000"])
                #expect(fresh.cacheOutcome == .network)
                #expect(try await reader.cacheGet("c", ["cc": "max-age=600", "size": "4000"]).cacheOutcome == .fresh)
                #expect(cacheHits(server, "c").count == 3)
            }
        }
    }

    @Test(arguments: cacheTransports)
    func evictionKeepsEachTierUnderItsByteLimit(_ transport: SessionManager.Transport) async throws {
        try await withCacheDirectory { directory in
            // Room for about three 10 kB responses in each tier.
            let cache = HTTPCache(memoryCapacity: 32_000, diskCapacity: 33_000, directory: directory)
            try await withCachedClient(transport, cache: cache) { (server, client) async throws in
                for index in 0..<6 {
                    _ = try await client.cacheGet("e\(index)", ["cc": "max-age=600", "size": "10000"])
                    #expect(await cache.currentMemoryUsage <= 32_000)
                    #expect(await cache.currentDiskUsage <= 33_000)
                }
                let counts = await cache.entryCounts
                #expect(counts.memory == 3 && counts.disk == 3)
                // The newest are kept, the oldest went to the network again.
                #expect(try await client.cacheGet("e5", ["cc": "max-age=600", "size": "10000"]).cacheOutcome == .fresh)
                #expect(try await client.cacheGet("e0", ["cc": "max-age=600", "size": "10000"]).cacheOutcome == .network)
                #expect(cacheHits(server, "e0").count == 2)
                let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                #expect(files.count == 3)
            }
        }
    }

    @Test(arguments: cacheTransports)
    func manyTasksShareOneCacheSafely(_ transport: SessionManager.Transport) async throws {
        try await withCacheDirectory { directory in
            let cache = HTTPCache(memoryCapacity: 40_000, diskCapacity: 1 << 20, directory: directory)
            try await withCachedClient(transport, cache: cache) { (server, client) async throws in
                let names = (0..<8).map { "k\($0)" }
                let results = try await withThrowingTaskGroup(of: (String, String).self) { group in
                    for round in 0..<6 {
                        for name in names {
                            group.addTask {
                                let query = round % 2 == 0 ? ["cc": "max-age=600", "etag": name, "size": "3000"]
                                                           : ["cc": "no-cache", "etag": name, "size": "3000"]
                                let response = try await client.cacheGet(name, query)
                                return (name, text(response.data))
                            }
                        }
                    }
                    var collected: [(String, String)] = []
                    for try await result in group { collected.append(result) }
                    return collected
                }
                #expect(results.count == 48)
                #expect(results.allSatisfy { name, body in body.hasPrefix("\(name) #") && body.utf8.count == 3000 })
                #expect(await cache.currentMemoryUsage <= 40_000)
                for name in names {
                    let response = try await client.cacheGet(name, ["cc": "max-age=600", "etag": name, "size": "3000"], policy: .returnCacheDataDontLoad)
                    #expect(response.cacheOutcome?.isFromCache == true)
                    #expect(cacheHits(server, name).count <= 6)
                }
            }
        }
    }
}
