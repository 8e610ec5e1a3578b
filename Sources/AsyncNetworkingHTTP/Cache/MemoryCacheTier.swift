/// The memory tier: stored responses by key, at most `capacity` bytes (``StoredResponse/cost``),
/// least recently used evicted first. A value type owned by ``HTTPCache``. Pure.
struct MemoryCacheTier: Sendable {
    /// The byte limit; 0 keeps nothing.
    let capacity: Int
    private var entries: [String: StoredResponse] = [:]
    private var order = LRUIndex()

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The bytes held.
    var usage: Int { order.totalCost }

    /// The number of entries held.
    var count: Int { entries.count }

    /// The entry for `key`, marked as most recently used.
    mutating func get(_ key: String) -> StoredResponse? {
        guard let entry = entries[key] else { return nil }
        order.touch(key)
        return entry
    }

    /// Stores `entry` as the most recently used, evicting the least recently used until the tier
    /// fits. An entry larger than the whole capacity is not kept (and removes any older one).
    mutating func put(_ entry: StoredResponse) {
        let key = entry.head.key
        let cost = entry.cost
        guard cost <= capacity else {
            remove(key)
            return
        }
        entries[key] = entry
        order.insert(key, cost: cost)
        for evicted in order.evict(toFit: capacity, keeping: key) { entries[evicted] = nil }
    }

    /// Removes the entry for `key`.
    mutating func remove(_ key: String) {
        entries[key] = nil
        order.remove(key)
    }

    /// Removes every entry.
    mutating func removeAll() {
        entries = [:]
        order.removeAll()
    }
}
