import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A private HTTP cache (RFC 9111) for `GET` responses, with a memory tier and an optional disk
/// tier — URLSession's `URLCache` does nothing on Linux, and the curl transport has none.
///
/// Off by default; one line turns it on for an ``HTTPClient``:
///
/// ```swift
/// client.cache = HTTPCache(memoryCapacity: 8 << 20, diskCapacity: 100 << 20,
///                          directory: cachesDirectory.appendingPathComponent("api"))
/// let response = try await client.request(.get, "users/42")
/// print(response.cacheOutcome)   // .network, then .fresh or .revalidated
/// ```
///
/// - Freshness from `Cache-Control: max-age`, `Expires`, `Date` and `Age`; without them, for a
///   response with `Last-Modified`, 10% of its age, at most a day.
/// - Stale responses are revalidated with `If-None-Match` / `If-Modified-Since`; a `304` is
///   answered with the stored body and the updated header fields (``HTTPCacheOutcome/revalidated``).
/// - `no-store` is never stored, `no-cache` always revalidates, `private` is stored (this cache
///   is private), `Vary` selects, and a request with `Authorization` is stored only when the
///   response says `public`, `s-maxage` or `must-revalidate`.
/// - Per request, `URLRequest.cachePolicy` chooses (see <doc:Caching>): `.useProtocolCachePolicy`
///   (the rules above), `.reloadIgnoringLocalCacheData` (skip the stored response),
///   `.reloadRevalidatingCacheData` (always revalidate), `.returnCacheDataElseLoad` and
///   `.returnCacheDataDontLoad` (any stored response, however old; the latter fails with
///   ``NetworkingError/Kind/transport(_:)`` `.resourceUnavailable` when there is none, as
///   URLSession does).
///
/// Each tier has a byte limit and evicts the least recently used entries. Disk writes are atomic
/// (temporary file, then rename), every file carries a checksum, and a damaged or unreadable
/// entry is a miss — never a crash. One key holds one response: a request whose `Vary` fields
/// differ misses and its response replaces the stored one.
///
/// Never replayed from the cache: `Set-Cookie`, `Set-Cookie2`, hop-by-hop fields and proxy
/// credentials — removed before storing and again when handing a stored response out.
///
/// **One user per cache.** This is a private cache (RFC 9111): it answers as if every request came
/// from the same user. A response to a request authenticated by anything but `Authorization` (a
/// cookie, a client certificate, a custom header field) is served to any later request for the
/// URL, and one to a request with `Authorization` that says `public`, `s-maxage` or
/// `must-revalidate` is served whatever `Authorization` the later request carries. Shared between
/// users, one user can be served another's response: give each user a cache (and a directory)
/// of its own. See <doc:Caching>.
///
/// `HTTPCache` is an actor, safe to share between the clients and tasks of one user. Its work (including disk
/// reads and writes) runs on a serial dispatch queue of its own, never on a Swift concurrency
/// thread. Two instances must not share a directory at the same time; a new instance on the
/// directory of one that is gone finds its entries.
public actor HTTPCache {
    /// The memory tier's byte limit.
    public nonisolated let memoryCapacity: Int
    /// The disk tier's byte limit (0 without a directory).
    public nonisolated let diskCapacity: Int
    /// The disk tier's directory, if any.
    public nonisolated let directory: URL?

    private let executor: QueueExecutor
    private var memory: MemoryCacheTier
    private var disk: DiskCacheTier?
    private var diskOpened = false
    /// The time source; tests move it forward instead of sleeping.
    nonisolated let clock: @Sendable () -> Date

    /// The actor's executor: a serial dispatch queue of its own, so disk I/O never blocks the
    /// Swift concurrency pool.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - memoryCapacity: bytes of responses (bodies plus header text) kept in memory. Default 4 MiB.
    ///   - diskCapacity: bytes of files kept in `directory`. Default 0: no disk tier.
    ///   - directory: where the disk tier keeps its files (created with mode 0700 if missing, on
    ///     first use). Default `nil`: no disk tier. If it cannot be created or read the disk
    ///     tier stays off (``isDiskTierAvailable``) and the memory tier works alone.
    public init(memoryCapacity: Int = 4 << 20, diskCapacity: Int = 0, directory: URL? = nil) {
        self.init(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory, clock: { Date() })
    }

    /// Creates a cache reading the time from `clock` (for tests).
    init(memoryCapacity: Int, diskCapacity: Int, directory: URL?, clock: @escaping @Sendable () -> Date) {
        self.memoryCapacity = max(0, memoryCapacity)
        self.directory = directory
        self.diskCapacity = directory == nil ? 0 : max(0, diskCapacity)
        self.memory = MemoryCacheTier(capacity: memoryCapacity)
        self.executor = QueueExecutor(label: "AsyncNetworking.HTTPCache")
        self.clock = clock
    }

    // MARK: Inspection and removal

    /// The bytes held in memory.
    public var currentMemoryUsage: Int { memory.usage }

    /// The bytes of the disk tier's files.
    public var currentDiskUsage: Int { diskTier()?.usage ?? 0 }

    /// Whether the disk tier is working (a directory and capacity were given, and the directory
    /// could be created and read).
    public var isDiskTierAvailable: Bool { diskTier() != nil }

    /// The stored response for `request`'s method and URL, whatever its age, or `nil`. Ignores
    /// `Vary`. Reading it counts as a use for eviction.
    public func cachedResponse(for request: URLRequest) -> (data: Data, response: HTTPURLResponse)? {
        guard let key = CacheKey.make(request), let entry = lookup(key) else { return nil }
        return (entry.body, entry.httpResponse(age: CacheFreshness.currentAge(entry.head, now: clock())))
    }

    /// Removes the stored response for `request`'s method and URL, from both tiers.
    public func removeCachedResponse(for request: URLRequest) {
        guard let key = CacheKey.make(request) else { return }
        remove(key)
    }

    /// Removes every stored response, from both tiers (files in the directory that are not
    /// entries are left alone).
    public func removeAllCachedResponses() {
        memory.removeAll()
        diskTier()?.removeAll()
    }

    // MARK: Internal

    /// The entry for `key`: from memory, else from disk (then copied to memory).
    func lookup(_ key: String) -> StoredResponse? {
        if let entry = memory.get(key) { return entry }
        guard let entry = diskTier()?.get(key) else { return nil }
        memory.put(entry)
        return entry
    }

    /// Stores `entry` in both tiers (each skips it if larger than its capacity).
    func store(_ entry: StoredResponse) {
        memory.put(entry)
        diskTier()?.put(entry)
    }

    /// Removes `key` from both tiers.
    func remove(_ key: String) {
        memory.remove(key)
        diskTier()?.remove(key)
    }

    /// The number of entries in each tier (for tests).
    var entryCounts: (memory: Int, disk: Int) { (memory.count, diskTier()?.count ?? 0) }

    /// The disk tier, opened on first use.
    private func diskTier() -> DiskCacheTier? {
        if !diskOpened {
            diskOpened = true
            if let directory, diskCapacity > 0 { disk = DiskCacheTier(directory: directory, capacity: diskCapacity) }
        }
        return disk
    }
}
