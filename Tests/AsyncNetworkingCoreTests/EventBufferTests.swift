@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// The stream state machine, without I/O: ordering, coalescing, watermarks, termination.
@Suite("EventBuffer state machine")
struct EventBufferTests {
    typealias Buffer = EventBuffer<Int>

    private func metrics() -> TransferMetrics {
        TransferMetrics(startDate: Date(), timeToResponse: nil, timeToFirstByte: nil, duration: .zero, bytesSent: 0, bytesReceived: 0, redirectCount: 0)
    }

    private func drain(_ buffer: inout Buffer) -> [String] {
        var names: [String] = []
        loop: while true {
            switch buffer.next() {
            case .event(let event):
                switch event {
                case .data(let data): names.append("data\(data.count)")
                case .downloadProgress(let p): names.append("down\(p.completedBytes)")
                case .uploadProgress(let p): names.append("up\(p.completedBytes)")
                default: names.append(event.name)
                }
            case .readSpill(_, let length): names.append("spill\(length)")
            case .fail: names.append("fail"); break loop
            case .end: names.append("end"); break loop
            case .suspend: names.append("suspend"); break loop
            }
        }
        return names
    }

    @Test func deliversInOrderAndEnds() {
        var buffer = Buffer(policy: .default)
        _ = buffer.pushData(Data(count: 3))
        _ = buffer.pushData(Data(count: 4))
        _ = buffer.finish(metrics())
        #expect(drain(&buffer) == ["data3", "data4", "completed", "end"])
    }

    @Test func progressCoalescesToNewestAndKeepsItsPlaceAfterData() {
        var buffer = Buffer(policy: .default)
        _ = buffer.pushData(Data(count: 10))
        _ = buffer.pushProgress(upload: false, TransferProgress(completedBytes: 10, expectedBytes: 30))
        _ = buffer.pushData(Data(count: 10))
        _ = buffer.pushProgress(upload: false, TransferProgress(completedBytes: 20, expectedBytes: 30))
        _ = buffer.pushData(Data(count: 10))
        _ = buffer.pushProgress(upload: false, TransferProgress(completedBytes: 30, expectedBytes: 30))
        // Three progress events coalesce into one, delivered where the first was due, with the newest value.
        #expect(drain(&buffer) == ["data10", "down30", "data10", "data10", "suspend"])
    }

    @Test func uploadProgressBeforeResponseIsDeliveredFirst() {
        var buffer = Buffer(policy: .default)
        _ = buffer.pushProgress(upload: true, TransferProgress(completedBytes: 5, expectedBytes: 10))
        _ = buffer.pushProgress(upload: true, TransferProgress(completedBytes: 10, expectedBytes: 10))
        #expect(drain(&buffer) == ["up10", "suspend"])
    }

    @Test func parkedWaiterIsReturnedByTheNextPush() {
        var buffer = Buffer(policy: .default)
        guard case .suspend = buffer.next() else { Issue.record("expected suspend"); return }
        #expect(buffer.park(7) == nil)
        guard case .queued(let waiter) = buffer.pushData(Data(count: 1)) else { Issue.record("expected queued"); return }
        #expect(waiter == [7])
        // Only one resume per park.
        guard case .queued(let again) = buffer.pushData(Data(count: 1)) else { Issue.record("expected queued"); return }
        #expect(again.isEmpty)
    }

    /// Delivered chunks must not stay referenced by the queue while undelivered ones remain (a slow
    /// consumer never lets it drain: up to 1,024 read chunks — 297 MiB on curl — stayed alive).
    @Test func deliveredChunksAreReleasedAtOnce() {
        let freed = LockedBox<Int>(0)
        var buffer = Buffer(policy: BufferPolicy(highWaterMark: 1 << 30, lowWaterMark: 0))
        for _ in 0..<10 {
            let pointer = UnsafeMutableRawPointer.allocate(byteCount: 1024, alignment: 8)
            let chunk = Data(bytesNoCopy: pointer, count: 1024, deallocator: .custom { pointer, _ in
                pointer.deallocate()
                freed.withValue { $0 += 1 }
            })
            _ = buffer.pushData(chunk)
        }
        for _ in 0..<5 {
            guard case .event(.data) = buffer.next() else { Issue.record("expected data"); return }
        }
        #expect(freed.value == 5)
    }

    @Test func aSecondParkedIteratorWaitsInsteadOfBeingHandedBack() {
        var buffer = Buffer(policy: .default)
        guard case .suspend = buffer.next() else { Issue.record("expected suspend"); return }
        #expect(buffer.park(1) == nil)
        // Before the fix the second waiter came straight back, so its `next()` spun on a core.
        #expect(buffer.park(2) == nil)
        guard case .queued(let woken) = buffer.pushData(Data(count: 1)) else { Issue.record("expected queued"); return }
        #expect(woken == [1, 2])
        // One of them takes the chunk; the other finds nothing and parks again.
        #expect(drain(&buffer) == ["data1", "suspend"])
        #expect(buffer.park(2) == nil)
        #expect(buffer.finish(metrics()) == [2])
    }

    @Test func parkingWithSomethingDeliverableReturnsTheWaiterAtOnce() {
        var buffer = Buffer(policy: .default)
        _ = buffer.pushData(Data(count: 1))
        #expect(buffer.park(3) == 3)
    }

    @Test func spillsPastHighWaterAndStopsBelowLowWater() {
        let policy = BufferPolicy(highWaterMark: 100, lowWaterMark: 40, spillReadSize: 1_000)
        var buffer = Buffer(policy: policy)
        for _ in 0..<5 {
            guard case .queued = buffer.pushData(Data(count: 20)) else { Issue.record("expected in memory"); return }
        }
        #expect(buffer.memoryBytes == 100)
        guard case .spill = buffer.pushData(Data(count: 20)) else { Issue.record("expected spill"); return }
        #expect(buffer.spilling)
        _ = buffer.pushSpilled(offset: 0, length: 20)
        _ = buffer.pushSpilled(offset: 20, length: 20) // contiguous: merges into one item
        #expect(buffer.spilledBytes == 40)
        // Drain memory to the low-water mark: spilling stops, new data goes to memory again.
        for _ in 0..<3 { _ = buffer.next() }
        #expect(buffer.memoryBytes == 40)
        #expect(!buffer.spilling)
        guard case .queued = buffer.pushData(Data(count: 20)) else { Issue.record("expected memory again"); return }
        // Order: the remaining memory chunks, the spilled run, then the newest chunk.
        #expect(drain(&buffer) == ["data20", "data20", "spill40", "data20", "suspend"])
        #expect(buffer.spilledBytes == 0)
    }

    @Test func spilledRunsAreReadBackInBoundedPieces() {
        var buffer = Buffer(policy: BufferPolicy(highWaterMark: 10, lowWaterMark: 0, spillReadSize: 16))
        _ = buffer.pushData(Data(count: 10))
        guard case .spill = buffer.pushData(Data(count: 40)) else { Issue.record("expected spill"); return }
        _ = buffer.pushSpilled(offset: 0, length: 40)
        #expect(drain(&buffer) == ["data10", "spill16", "spill16", "spill8", "suspend"])
    }

    @Test func failPolicyOverflowsInsteadOfSpilling() {
        var buffer = Buffer(policy: BufferPolicy(highWaterMark: 10, lowWaterMark: 5, overflow: .fail))
        _ = buffer.pushData(Data(count: 8))
        guard case .overflow(let limit) = buffer.pushData(Data(count: 8)) else { Issue.record("expected overflow"); return }
        #expect(limit == 10)
    }

    @Test func failureIsThrownAfterQueuedItems() {
        var buffer = Buffer(policy: .default)
        _ = buffer.pushData(Data(count: 2))
        _ = buffer.fail(NetworkingError(.transport(.networkConnectionLost)))
        _ = buffer.pushData(Data(count: 2)) // dropped: the stream is closed
        #expect(drain(&buffer) == ["data2", "fail"])
        guard case .end = buffer.next() else { Issue.record("expected end after the error"); return }
    }

    @Test func consumerLeavingDiscardsAndReportsWhetherTheTransferRan() {
        var buffer = Buffer(policy: .default)
        _ = buffer.next()
        _ = buffer.park(1)
        _ = buffer.pushData(Data(count: 4))
        let (waiter, wasOpen) = buffer.consumerLeft()
        #expect(waiter.isEmpty) // the push already took it
        #expect(wasOpen)
        #expect(buffer.memoryBytes == 0)
        guard case .drop = buffer.pushData(Data(count: 4)) else { Issue.record("expected drop"); return }

        var finished = Buffer(policy: .default)
        _ = finished.finish(metrics())
        #expect(finished.consumerLeft().wasOpen == false)
    }
}
