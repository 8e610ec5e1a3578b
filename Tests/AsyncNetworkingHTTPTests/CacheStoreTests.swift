@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// A fresh directory under the temporary directory, removed after `body`.
func withCacheDirectory<T>(_ body: (URL) async throws -> T) async rethrows -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("AsyncNetworking-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// A stored response for `path` with a body of `size` bytes.
func storedEntry(_ path: String, size: Int = 100, headers: [String: String] = ["Cache-Control": "max-age=60"]) -> StoredResponse {
    let url = URL(string: "http://127.0.0.1/\(path)")!
    let head = StoredResponse.Head(
        key: CacheKey.make(method: "GET", url: url), url: url, statusCode: 200, headers: HeaderFields(headers),
        requestTime: Date(timeIntervalSince1970: 1_700_000_000), responseTime: Date(timeIntervalSince1970: 1_700_000_001), vary: [:]
    )
    return StoredResponse(head: head, body: Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ path.count) }))
}

/// The memory and disk tiers, the LRU index and the file format.
@Suite struct CacheStoreTests {
    @Test func lruIndexEvictsOldestFirstAndTouchRefreshes() {
        var index = LRUIndex()
        index.insert("a", cost: 10)
        index.insert("b", cost: 10)
        index.insert("c", cost: 10)
        index.touch("a")
        #expect(index.keysOldestFirst == ["b", "c", "a"])
        #expect(index.evict(toFit: 15, keeping: "b") == ["c", "a"])
        #expect(index.keysOldestFirst == ["b"])
        #expect(index.totalCost == 10)
        index.insert("b", cost: 4)
        #expect(index.totalCost == 4 && index.count == 1)
    }

    @Test func memoryTierEvictsLeastRecentlyUsedUnderItsByteLimit() {
        let a = storedEntry("a"), b = storedEntry("b"), c = storedEntry("c")
        var tier = MemoryCacheTier(capacity: a.cost * 2 + a.cost / 2)
        tier.put(a)
        tier.put(b)
        #expect(tier.get("GET http://127.0.0.1/a") == a) // a is now the most recently used
        tier.put(c)
        #expect(tier.usage <= tier.capacity)
        #expect(tier.get("GET http://127.0.0.1/b") == nil)
        #expect(tier.get("GET http://127.0.0.1/a") == a)
        #expect(tier.get("GET http://127.0.0.1/c") == c)
        // Larger than the whole tier: not kept, and an older value of that key goes too.
        tier.put(storedEntry("a", size: tier.capacity + 1))
        #expect(tier.get("GET http://127.0.0.1/a") == nil)
        #expect(tier.usage <= tier.capacity)
    }

    @Test func fileFormatRoundTripsAndRefusesEveryDamage() throws {
        let entry = storedEntry("x", size: 300, headers: ["ETag": "\"a\"", "Content-Type": "text/plain"])
        let data = try #require(CacheFileFormat.encode(entry))
        #expect(CacheFileFormat.decode(data, key: entry.head.key) == entry)
        #expect(CacheFileFormat.decode(data, key: "GET http://127.0.0.1/other") == nil)
        for offset in stride(from: 0, to: data.count, by: 7) {
            var damaged = data
            damaged[offset] ^= 0x40
            #expect(CacheFileFormat.decode(damaged, key: entry.head.key) == nil, "a flipped byte at \(offset) was accepted")
        }
        for length in [0, 10, 28, data.count - 1] {
            #expect(CacheFileFormat.decode(data.prefix(length), key: entry.head.key) == nil)
        }
        #expect(CacheFileFormat.decode(data + Data([0]), key: entry.head.key) == nil)
    }

    @Test func diskEntriesSurviveANewTierAndFileNamesAreHashes() async throws {
        try await withCacheDirectory { directory in
            let entry = storedEntry("secret-path?token=abc")
            do {
                let tier = try #require(DiskCacheTier(directory: directory, capacity: 1 << 20))
                tier.put(entry)
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names == [CacheKey.fileName(entry.head.key)])
            #expect(names.allSatisfy(DiskCacheTier.isEntryName))
            let reopened = try #require(DiskCacheTier(directory: directory, capacity: 1 << 20))
            #expect(reopened.count == 1)
            #expect(reopened.get(entry.head.key) == entry)
        }
    }

    @Test func diskTierEvictsLeastRecentlyUsedUnderItsByteLimitAcrossRestarts() async throws {
        try await withCacheDirectory { directory in
            let entries = (0..<4).map { storedEntry("e\($0)", size: 1000) }
            let fileSize = try #require(CacheFileFormat.encode(entries[0])).count
            let tier = try #require(DiskCacheTier(directory: directory, capacity: fileSize * 3))
            for entry in entries.prefix(3) { tier.put(entry) }
            #expect(tier.get(entries[0].head.key) != nil) // e0 used: e1 is now the oldest
            tier.put(entries[3])
            #expect(tier.usage <= tier.capacity)
            #expect(tier.count == 3)
            #expect(tier.get(entries[1].head.key) == nil)
            let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(!onDisk.contains(CacheKey.fileName(entries[1].head.key)))
            // A smaller limit at the next start evicts by recency (file times).
            let smaller = try #require(DiskCacheTier(directory: directory, capacity: fileSize))
            #expect(smaller.count == 1)
            #expect(smaller.usage <= fileSize)
        }
    }

    @Test func corruptOrTruncatedDiskEntryIsAMissAndIsRemoved() async throws {
        try await withCacheDirectory { directory in
            let entry = storedEntry("c", size: 500)
            let tier = try #require(DiskCacheTier(directory: directory, capacity: 1 << 20))
            tier.put(entry)
            let file = directory.appendingPathComponent(CacheKey.fileName(entry.head.key))
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count - 10] ^= 0xFF
            try bytes.write(to: file)
            let reopened = try #require(DiskCacheTier(directory: directory, capacity: 1 << 20))
            #expect(reopened.get(entry.head.key) == nil)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(reopened.count == 0)
            // Truncated to nothing, and garbage: misses too.
            reopened.put(entry)
            try Data().write(to: file)
            #expect(reopened.get(entry.head.key) == nil)
            reopened.put(entry)
            try Data("not a cache file".utf8).write(to: file)
            #expect(reopened.get(entry.head.key) == nil)
        }
    }

    @Test func symlinksAreNeverFollowedAndForeignFilesAreLeftAlone() async throws {
        try await withCacheDirectory { directory in
            try await withCacheDirectory { outside in
                try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
                let entry = storedEntry("l")
                let target = outside.appendingPathComponent("target")
                try #require(CacheFileFormat.encode(entry)).write(to: target)
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                let link = directory.appendingPathComponent(CacheKey.fileName(entry.head.key))
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
                let foreign = directory.appendingPathComponent("notes.txt")
                try Data("mine".utf8).write(to: foreign)
                try Data("half".utf8).write(to: directory.appendingPathComponent(".tmp-leftover"))

                let tier = try #require(DiskCacheTier(directory: directory, capacity: 1 << 20))
                #expect(tier.count == 0)                       // the link is not indexed
                #expect(tier.get(entry.head.key) == nil)
                tier.put(entry)                                 // replaces the link, not its target
                #expect(tier.get(entry.head.key) == entry)
                let attributes = try FileManager.default.attributesOfItem(atPath: link.path)
                #expect(attributes[.type] as? FileAttributeType == .typeRegular)
                #expect(try Data(contentsOf: target) == CacheFileFormat.encode(entry))
                tier.removeAll()
                #expect(FileManager.default.fileExists(atPath: foreign.path))
                #expect(FileManager.default.fileExists(atPath: target.path))
                #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".tmp-leftover").path))
            }
        }
    }

    @Test func unusableDirectoryLeavesTheMemoryTierWorking() async throws {
        try await withCacheDirectory { directory in
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let file = directory.appendingPathComponent("plain-file")
            try Data("x".utf8).write(to: file)
            let cache = HTTPCache(memoryCapacity: 1 << 20, diskCapacity: 1 << 20, directory: file)
            #expect(await cache.isDiskTierAvailable == false)
            let entry = storedEntry("m")
            await cache.store(entry)
            #expect(await cache.lookup(entry.head.key) == entry)
        }
    }
}
