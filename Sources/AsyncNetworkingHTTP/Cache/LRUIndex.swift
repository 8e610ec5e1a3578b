/// Keys in least-recently-used order with a byte cost each, and a byte limit. Pure.
///
/// A doubly linked list threaded through a dictionary: touching, inserting, removing and finding
/// the oldest key are O(1). Both cache tiers use it — the memory tier for its entries, the disk
/// tier for its files.
struct LRUIndex: Sendable {
    private struct Node: Sendable {
        var cost: Int
        var older: String?
        var newer: String?
    }

    private var nodes: [String: Node] = [:]
    private var oldest: String?
    private var newest: String?

    /// The sum of the costs of the keys present.
    private(set) var totalCost = 0

    /// The number of keys present.
    var count: Int { nodes.count }

    /// Whether `key` is present.
    func contains(_ key: String) -> Bool { nodes[key] != nil }

    /// The cost of `key`, if present.
    func cost(of key: String) -> Int? { nodes[key]?.cost }

    /// The keys from least to most recently used.
    var keysOldestFirst: [String] {
        var keys: [String] = []
        var cursor = oldest
        while let key = cursor {
            keys.append(key)
            cursor = nodes[key]?.newer
        }
        return keys
    }

    /// Marks `key` as the most recently used (no effect when absent).
    mutating func touch(_ key: String) {
        guard let node = nodes[key] else { return }
        unlink(key, node)
        append(key, cost: node.cost)
    }

    /// Inserts or replaces `key` as the most recently used, with `cost`.
    mutating func insert(_ key: String, cost: Int) {
        remove(key)
        append(key, cost: cost)
    }

    /// Removes `key`; returns whether it was present.
    @discardableResult
    mutating func remove(_ key: String) -> Bool {
        guard let node = nodes[key] else { return false }
        unlink(key, node)
        return true
    }

    /// Removes least recently used keys, never `keeping`, until the total cost is at most `limit`;
    /// returns the keys removed, oldest first.
    mutating func evict(toFit limit: Int, keeping: String? = nil) -> [String] {
        var evicted: [String] = []
        var cursor = oldest
        while totalCost > limit, let key = cursor {
            cursor = nodes[key]?.newer
            if key == keeping { continue }
            remove(key)
            evicted.append(key)
        }
        return evicted
    }

    /// Removes every key.
    mutating func removeAll() {
        nodes = [:]
        oldest = nil
        newest = nil
        totalCost = 0
    }

    private mutating func append(_ key: String, cost: Int) {
        nodes[key] = Node(cost: cost, older: newest, newer: nil)
        if let newest { nodes[newest]?.newer = key } else { oldest = key }
        newest = key
        totalCost += cost
    }

    private mutating func unlink(_ key: String, _ node: Node) {
        if let older = node.older { nodes[older]?.newer = node.newer } else { oldest = node.newer }
        if let newer = node.newer { nodes[newer]?.older = node.older } else { newest = node.older }
        nodes[key] = nil
        totalCost -= node.cost
    }
}
