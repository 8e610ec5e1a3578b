import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The pure state machine behind a transfer's event stream: ordering, progress coalescing, the
/// high/low watermarks and spilling decisions, termination. No I/O and no locking: the
/// ``EventChannel`` holds it in a mutex and performs the actions its methods return.
///
/// `Waiter` is the type of a parked consumer (an `UnsafeContinuation` in production, anything
/// in tests). Several iterators may share one transfer's events: each event goes to exactly one of
/// them, and every parked iterator is woken when something arrives (the others park again).
struct EventBuffer<Waiter> {
    /// A queued item: an event held in memory, or a run of body bytes in the spill file.
    enum Item {
        case event(TransferEvent)
        case spilled(offset: Int64, length: Int)
    }

    /// What the producer must do with a chunk it pushed.
    enum PushDataAction {
        /// Queued in memory; resume the parked waiters.
        case queued(resume: [Waiter])
        /// Write the chunk to the spill file, then call ``pushSpilled(offset:length:)``.
        case spill
        /// The in-memory limit was reached and the policy says fail: end the transfer.
        case overflow(limit: Int)
        /// The stream is over (consumer gone or already terminated); drop the chunk.
        case drop
    }

    /// What the consumer gets when it asks for the next element.
    enum NextAction {
        case event(TransferEvent)
        /// Read `length` bytes at `offset` from the spill file and deliver them as one data event.
        case readSpill(offset: Int64, length: Int)
        case fail(NetworkingError)
        case end
        /// Nothing yet: park with ``park(_:)``.
        case suspend
    }

    private enum Termination {
        case none
        /// A failure to throw once the queued items have been delivered.
        case failing(NetworkingError)
        /// The terminal event was delivered, or the error thrown: `next()` returns `nil` from now on.
        case ended
    }

    private struct PendingProgress {
        var value: TransferProgress
        /// Deliverable once this many items have been delivered (keeps progress after the data it follows).
        var position: Int
    }

    /// Past this many queued items, a body chunk is appended to the last queued chunk (while that
    /// holds less than ``coalescedChunkSize`` bytes) instead of queued on its own. A queued item
    /// costs about 300 bytes whatever its size, so a flood of tiny chunks (a chunked body of 1-byte
    /// chunks, which URLSession delivers one callback each) would otherwise cost hundreds of times
    /// its bytes while the consumer is behind: this way the queue holds at most this many items
    /// plus one per ``coalescedChunkSize`` bytes, and the high-water mark bounds what it costs.
    /// A consumer that keeps up sees the chunks as they came; one that is behind sees them joined
    /// (chunk boundaries carry no meaning: the transports join and cut chunks as they read).
    static var coalescingThreshold: Int { 64 }
    /// The size below which the last queued chunk takes the next one (``coalescingThreshold``).
    static var coalescedChunkSize: Int { 16 << 10 }

    let policy: BufferPolicy
    private var items: [Item] = []
    private var head = 0
    private var enqueued = 0
    private var delivered = 0
    private var upload: PendingProgress?
    private var download: PendingProgress?
    private var termination = Termination.none
    private var completedQueued = false
    private var consumerGone = false
    private var waiters: [Waiter] = []
    /// Body bytes held in memory by queued `.data` events.
    private(set) var memoryBytes = 0
    /// Body bytes queued in the spill file and not yet delivered.
    private(set) var spilledBytes: Int64 = 0
    /// `true` from passing the high-water mark until memory drains to the low-water mark.
    private(set) var spilling = false

    init(policy: BufferPolicy) { self.policy = policy }

    /// Whether the stream accepts no more events (terminated, or the consumer went away).
    var isClosed: Bool {
        if consumerGone || completedQueued { return true }
        if case .none = termination { return false }
        return true
    }

    /// Items queued and not yet delivered (progress slots not counted).
    var queuedCount: Int { items.count - head }

    // MARK: Producer

    /// Queues a non-data, non-progress event (response, downloaded file).
    mutating func push(_ event: TransferEvent) -> [Waiter] {
        guard !isClosed else { return [] }
        append(.event(event))
        return takeWaiter()
    }

    /// Offers a body chunk.
    mutating func pushData(_ data: Data) -> PushDataAction {
        guard !isClosed else { return .drop }
        if !spilling, memoryBytes > 0, memoryBytes + data.count > policy.highWaterMark {
            switch policy.overflow {
            case .fail: return .overflow(limit: policy.highWaterMark)
            case .spillToDisk: spilling = true
            }
        }
        if spilling { return .spill }
        memoryBytes += data.count
        if queuedCount < Self.coalescingThreshold || !appendToLastChunk(data) {
            append(.event(.data(data)))
        }
        return .queued(resume: takeWaiter())
    }

    /// Appends `data` to the last queued item when it is a body chunk under
    /// ``coalescedChunkSize`` that no pending progress follows (progress stays after the data it
    /// was recorded after). Returns whether it did.
    private mutating func appendToLastChunk(_ data: Data) -> Bool {
        guard head < items.count, case .event(.data(var last)) = items[items.count - 1],
              last.count < Self.coalescedChunkSize,
              (upload?.position ?? 0) < enqueued, (download?.position ?? 0) < enqueued else { return false }
        // Drop the queue's reference first, so the chunk is appended in place, not copied.
        items[items.count - 1] = .spilled(offset: 0, length: 0)
        last.append(data)
        items[items.count - 1] = .event(.data(last))
        return true
    }

    /// Records that `length` bytes were written to the spill file at `offset`.
    mutating func pushSpilled(offset: Int64, length: Int) -> [Waiter] {
        guard !isClosed else { return [] }
        spilledBytes += Int64(length)
        if head < items.count, case .spilled(let lastOffset, let lastLength) = items[items.count - 1],
           lastOffset + Int64(lastLength) == offset {
            items[items.count - 1] = .spilled(offset: lastOffset, length: lastLength + length)
        } else {
            append(.spilled(offset: offset, length: length))
        }
        return takeWaiter()
    }

    /// Records progress, coalescing with any undelivered progress of the same direction.
    mutating func pushProgress(upload isUpload: Bool, _ value: TransferProgress) -> [Waiter] {
        guard !isClosed else { return [] }
        if isUpload {
            if upload != nil { upload!.value = value } else { upload = PendingProgress(value: value, position: enqueued) }
        } else {
            if download != nil { download!.value = value } else { download = PendingProgress(value: value, position: enqueued) }
        }
        return takeWaiter()
    }

    /// Queues the terminal success event, after the response's trailers when it had any.
    mutating func finish(_ metrics: TransferMetrics) -> [Waiter] {
        guard !isClosed else { return [] }
        if !metrics.trailers.isEmpty { append(.event(.trailers(metrics.trailers))) }
        append(.event(.completed(metrics)))
        completedQueued = true
        return takeWaiter()
    }

    /// Ends the stream with an error, thrown after the already-queued items are delivered.
    mutating func fail(_ error: NetworkingError) -> [Waiter] {
        guard !isClosed else { return [] }
        termination = .failing(error)
        return takeWaiter()
    }

    // MARK: Consumer

    /// Takes the next element, or says to read the spill file, park, end or throw.
    mutating func next() -> NextAction {
        if consumerGone { return .end }
        if let pending = upload, pending.position <= delivered {
            upload = nil
            return .event(.uploadProgress(pending.value))
        }
        if let pending = download, pending.position <= delivered {
            download = nil
            return .event(.downloadProgress(pending.value))
        }
        if head < items.count {
            switch items[head] {
            case .event(let event):
                popFront()
                if case .data(let data) = event {
                    memoryBytes -= data.count
                    if spilling, memoryBytes <= policy.lowWaterMark { spilling = false }
                }
                if case .completed = event { termination = .ended }
                return .event(event)
            case .spilled(let offset, let length):
                let take = min(length, policy.spillReadSize)
                if take == length {
                    popFront()
                } else {
                    items[head] = .spilled(offset: offset + Int64(take), length: length - take)
                }
                spilledBytes -= Int64(take)
                return .readSpill(offset: offset, length: take)
            }
        }
        switch termination {
        case .failing(let error):
            termination = .ended
            return .fail(error)
        case .ended:
            return .end
        case .none:
            return .suspend
        }
    }

    /// Parks a consumer. Returns the waiter back if it must be resumed at once (something arrived
    /// or the stream closed between ``next()`` and this call — which cannot happen under one lock,
    /// but the check keeps the machine safe on its own). Another iterator already parked does not
    /// make this one return: it waits too, without spinning.
    mutating func park(_ newWaiter: Waiter) -> Waiter? {
        if hasDeliverable || consumerGone { return newWaiter }
        waiters.append(newWaiter)
        return nil
    }

    /// The consumer's task was cancelled, or it dropped the stream: everything queued is discarded,
    /// further pushes are dropped. Returns the parked waiters (to resume) and whether the transfer was
    /// still running (and so must be cancelled).
    mutating func consumerLeft() -> (resume: [Waiter], wasOpen: Bool) {
        let wasOpen = !isClosed
        consumerGone = true
        items.removeAll()
        head = 0
        memoryBytes = 0
        spilledBytes = 0
        upload = nil
        download = nil
        return (takeWaiter(), wasOpen)
    }

    // MARK: Helpers

    private var hasDeliverable: Bool {
        if head < items.count { return true }
        if let upload, upload.position <= delivered { return true }
        if let download, download.position <= delivered { return true }
        if case .none = termination { return false }
        return true
    }

    private mutating func takeWaiter() -> [Waiter] {
        defer { waiters.removeAll() }
        return waiters
    }

    private mutating func append(_ item: Item) {
        items.append(item)
        enqueued += 1
    }

    private mutating func popFront() {
        // Release the delivered item now: a slow consumer may never let the queue drain, and the
        // array would otherwise keep up to 1,024 delivered chunks alive.
        items[head] = .spilled(offset: 0, length: 0)
        head += 1
        delivered += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
    }
}

extension EventBuffer: Sendable where Waiter: Sendable {}
extension EventBuffer.Item: Sendable {}
extension EventBuffer.PushDataAction: Sendable where Waiter: Sendable {}
extension EventBuffer.NextAction: Sendable {}
