/// The manager-wide concurrency limit with priorities (YTKNetwork's dispatcher), as a pure state
/// machine: which transfers may start now, which wait, in what order.
///
/// Transfers of higher priority start first; within one priority, first come first served. A
/// waiting transfer that is cancelled is removed without ever starting.
struct TransferScheduler {
    /// At most this many run at once; `nil` is no limit.
    var limit: Int?
    /// How many are running now (admitted and not yet finished).
    private(set) var running = 0
    /// The largest ``running`` has been.
    private(set) var maxRunning = 0
    private var waiting: [TransferPriority: [TransferID]] = [:]
    private var waitingHeads: [TransferPriority: Int] = [:]

    init(limit: Int?) { self.limit = limit.map { max(1, $0) } }

    /// How many transfers wait for a slot.
    var waitingCount: Int {
        TransferPriority.allCases.reduce(0) { $0 + (waiting[$1]?.count ?? 0) - (waitingHeads[$1] ?? 0) }
    }

    /// Offers a transfer: `true` means start it now (it counts as running), `false` that it waits.
    mutating func admit(_ id: TransferID, priority: TransferPriority) -> Bool {
        if let limit, running >= limit {
            waiting[priority, default: []].append(id)
            return false
        }
        markRunning()
        return true
    }

    /// A running transfer finished: returns the waiting transfers to start now, in order.
    mutating func didFinishRunning() -> [TransferID] {
        running = max(0, running - 1)
        return drain()
    }

    /// Changes the limit and returns transfers that may start because it grew.
    mutating func setLimit(_ newLimit: Int?) -> [TransferID] {
        limit = newLimit.map { max(1, $0) }
        return drain()
    }

    /// Removes a waiting transfer (cancelled before it started). Returns whether it was waiting.
    @discardableResult
    mutating func removeWaiting(_ id: TransferID) -> Bool {
        for priority in TransferPriority.allCases {
            guard var queue = waiting[priority] else { continue }
            let head = waitingHeads[priority] ?? 0
            if let index = queue[head...].firstIndex(of: id) {
                queue.remove(at: index)
                waiting[priority] = queue
                return true
            }
        }
        return false
    }

    /// Every waiting transfer, removed from the queue (used when the session is invalidated).
    mutating func removeAllWaiting() -> [TransferID] {
        var all: [TransferID] = []
        for priority in TransferPriority.allCases.reversed() {
            all += waiting[priority].map { Array($0[(waitingHeads[priority] ?? 0)...]) } ?? []
        }
        waiting = [:]
        waitingHeads = [:]
        return all
    }

    private mutating func drain() -> [TransferID] {
        var started: [TransferID] = []
        while limit.map({ running < $0 }) ?? true, let next = popHighest() {
            markRunning()
            started.append(next)
        }
        return started
    }

    private mutating func markRunning() {
        running += 1
        maxRunning = max(maxRunning, running)
    }

    private mutating func popHighest() -> TransferID? {
        for priority in TransferPriority.allCases.reversed() {
            guard let queue = waiting[priority] else { continue }
            let head = waitingHeads[priority] ?? 0
            guard head < queue.count else { continue }
            if head + 1 == queue.count {
                waiting[priority] = nil
                waitingHeads[priority] = nil
            } else if head >= 256 {
                waiting[priority] = Array(queue[(head + 1)...])
                waitingHeads[priority] = nil
            } else {
                waitingHeads[priority] = head + 1
            }
            return queue[head]
        }
        return nil
    }
}
