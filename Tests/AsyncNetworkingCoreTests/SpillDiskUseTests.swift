@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// The spill file's disk use follows the backlog, not the total ever spilled.
@Suite struct SpillDiskUseTests {
    static let chunkSize = 64 << 10

    /// The byte at stream position `position`.
    static func expectedByte(at position: Int) -> UInt8 { UInt8((position / chunkSize) % 251) }

    /// A consumer that checks what it reads and counts it.
    struct Reader {
        let channel: EventChannel
        var consumed = 0

        mutating func read() async throws {
            guard case .data(let data)? = try await channel.next() else {
                Issue.record("expected a data event")
                throw CancellationError()
            }
            let first = data.first!, last = data.last!
            #expect(first == SpillDiskUseTests.expectedByte(at: consumed))
            #expect(last == SpillDiskUseTests.expectedByte(at: consumed + data.count - 1))
            consumed += data.count
        }
    }

    @Test func slowConsumerOfALongStreamUsesBoundedDisk() async throws {
        let policy = BufferPolicy(highWaterMark: 1 << 20, lowWaterMark: 256 << 10, spillReadSize: 64 << 10)
        let channel = EventChannel(policy: policy, requestCancel: {})
        var reader = Reader(channel: channel)
        let total = 96 << 20
        let (low, high) = (8 << 20, 12 << 20)
        let slack = EventChannel.spillReleaseStep + Int64(policy.spillReadSize) + (2 << 20)
        var produced = 0
        var worst: Int64 = 0
        while produced < total {
            let chunk = Data(repeating: Self.expectedByte(at: produced), count: Self.chunkSize)
            #expect(channel.send(data: chunk) == nil)
            produced += chunk.count
            if produced - reader.consumed > high {
                while produced - reader.consumed > low { try await reader.read() }
            }
            let allocated = channel.spillAllocatedBytes
            worst = max(worst, allocated - Int64(produced - reader.consumed))
            #expect(allocated <= Int64(produced - reader.consumed) + slack, "\(allocated) bytes on disk for a backlog of \(produced - reader.consumed)")
        }
        #expect(worst <= slack)
        while reader.consumed < produced { try await reader.read() }
        #expect(channel.spillAllocatedBytes <= 64 << 10, "a drained spill keeps (almost) no blocks")
        channel.finish(TransferMetrics(startDate: Date(), timeToResponse: nil, timeToFirstByte: nil, duration: .zero, bytesSent: 0, bytesReceived: Int64(produced), redirectCount: 0))
    }

    @Test func drainedSpillIsRewoundAndReused() async throws {
        let policy = BufferPolicy(highWaterMark: 256 << 10, lowWaterMark: 0, spillReadSize: 64 << 10)
        let channel = EventChannel(policy: policy, requestCancel: {})
        var reader = Reader(channel: channel)
        var produced = 0
        for _ in 0..<24 {
            // A burst of 3 MiB (most of it spilled), then the consumer catches up completely.
            for _ in 0..<48 {
                #expect(channel.send(data: Data(repeating: Self.expectedByte(at: produced), count: Self.chunkSize)) == nil)
                produced += Self.chunkSize
            }
            #expect(channel.spillAllocatedBytes <= 4 << 20, "one burst's worth at most")
            while reader.consumed < produced { try await reader.read() }
            #expect(channel.bufferedBytes.spilled == 0)
        }
        #expect(channel.spillAllocatedBytes <= 64 << 10)
    }

    @Test func releasedRangesAreHolesAndTruncateEmpties() throws {
        let file = try SpillFile()
        let block = Data(repeating: 7, count: 1 << 20)
        for index in 0..<8 { try file.write(block, at: Int64(index) << 20) }
        let full = file.allocatedBytes
        #expect(full >= 8 << 20)
        file.release(from: 0, to: 6 << 20)
        #expect(file.allocatedBytes <= full - (5 << 20))
        #expect(try file.read(at: 7 << 20, length: 16) == Data(repeating: 7, count: 16), "bytes past the hole are kept")
        file.truncate()
        #expect(file.allocatedBytes == 0)
    }
}
