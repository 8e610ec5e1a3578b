@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// The rule on a transfer's event stream: what it holds for a consumer that is behind is bounded
/// by what it costs in memory, not only by body bytes. A queued item costs about 300 bytes whatever
/// its size, so a body of 1-byte chunks (URLSession delivers each chunk of a chunked body as a
/// callback of its own) must not queue one item per byte: past
/// ``EventBuffer/coalescingThreshold`` items, chunks are joined into the last queued one. Before,
/// 512 KiB of 1-byte chunks queued 524,288 items (about 150 MB) under a 4 MiB high-water mark.
@Suite("Event stream cost of tiny chunks")
struct EventBufferCostTests {
    typealias Buffer = EventBuffer<Int>

    /// How many items `bytes` of body may occupy: a fixed number, then one per 4 KiB — so the
    /// items (about 300 bytes each) cost a small fraction of the bytes they hold.
    static func itemBound(_ bytes: Int) -> Int {
        100 + bytes / 4096
    }

    @Test func aFloodOfOneByteChunksJoinsWhileTheConsumerIsBehind() {
        var buffer = Buffer(policy: .default)
        let count = 300_000
        for index in 0..<count { _ = buffer.pushData(Data([UInt8(truncatingIfNeeded: index)])) }
        #expect(buffer.queuedCount <= Self.itemBound(count), "\(buffer.queuedCount) items")
        #expect(buffer.memoryBytes == count)
        var body = Data()
        while case .event(.data(let chunk)) = buffer.next() { body.append(chunk) }
        #expect(body == Data((0..<count).map { UInt8(truncatingIfNeeded: $0) }))
    }

    @Test func progressStaysAfterTheDataItFollows() {
        var buffer = Buffer(policy: .default)
        for _ in 0..<Buffer.coalescingThreshold { _ = buffer.pushData(Data([1])) }
        _ = buffer.pushProgress(upload: false, TransferProgress(completedBytes: 64, expectedBytes: nil))
        _ = buffer.pushData(Data([2])) // after the progress: not joined to the chunk before it
        _ = buffer.pushData(Data([3]))
        var seen: [String] = []
        loop: while true {
            switch buffer.next() {
            case .event(.data(let chunk)): seen.append("data\(Array(chunk))")
            case .event(.downloadProgress(let progress)): seen.append("progress\(progress.completedBytes)")
            default: break loop
            }
        }
        #expect(seen == Array(repeating: "data[1]", count: Buffer.coalescingThreshold) + ["progress64", "data[2, 3]"])
    }

    @Test func aConsumerThatKeepsUpSeesTheChunksAsTheyCame() {
        var buffer = Buffer(policy: .default)
        for index in 0..<1_000 {
            _ = buffer.pushData(Data([UInt8(truncatingIfNeeded: index)]))
            guard case .event(.data(let chunk)) = buffer.next() else { Issue.record("no chunk"); return }
            #expect(chunk.count == 1)
        }
    }

    /// Through the public API on the run's transport, against a server sending a chunked body of
    /// 1-byte chunks to a consumer that does not read: the stream holds a bounded number of items,
    /// then every byte comes back in order.
    @Test func aChunkedBodyOfOneByteChunksHeldForASlowConsumer() async throws {
        try await withServerAndManager { server, manager in
            let size = 512 << 10
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/stream/\(size)?chunk=1")))
            let channel = handle.lifetime.channel
            // Nobody reads: URLSession delivers the whole body; curl holds it back at its window.
            #expect(await eventually {
                await manager.activeTransferCount == 0 || channel.bufferedBytes.memory >= size / 2
            })
            #expect(channel.queuedCount <= Self.itemBound(size), "\(channel.queuedCount) items for \(channel.bufferedBytes)")
            var body = Data()
            for try await event in handle.events { if case .data(let chunk) = event { body.append(chunk) } }
            #expect(body.count == size)
            #expect(body == BytePattern.data(offset: 0, count: size))
        }
    }
}
