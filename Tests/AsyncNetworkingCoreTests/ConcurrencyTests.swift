@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

@Suite("Concurrency and bounded memory")
struct ConcurrencyTests {
    @Test func thousandConcurrentSmallRequestsAllSucceed() async throws {
        try await withServerAndManager(deadline: 5 * hangDeadline) { server, manager in
            let results = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                for i in 0..<1000 {
                    let url = server.url("/bytes/\(i % 97 + 1)?seed=\(i)")
                    group.addTask { (i, try await manager.data(from: url).0) }
                }
                var all: [Int: Data] = [:]
                for try await (i, body) in group { all[i] = body }
                return all
            }
            #expect(results.count == 1000)
            for (i, body) in results {
                #expect(body == SeededBytes.data(seed: UInt64(i), offset: 0, count: i % 97 + 1))
            }
            #expect(await manager.activeTransferCount == 0)
        }
    }

    /// URLSession has no flow control, so the body arrives whole while nobody reads and the
    /// buffer spills past its high-water mark; on curl the transfer pauses instead (the server feels
    /// back-pressure) and nothing spills. Either way every byte comes back, in order.
    @Test func slowConsumerSpillsToDiskAndReadsBackIdenticalBytes() async throws {
        try await withServerAndManager { server, manager in
            let size = 8 << 20
            let policy = BufferPolicy(highWaterMark: 256 << 10, lowWaterMark: 64 << 10)
            let handle = try await manager.dataTask(
                with: URLRequest(url: server.url("/bytes/\(size)?seed=11")), options: TransferOptions(buffer: policy)
            )
            let channel = handle.lifetime.channel
            if manager.transport == .curl {
                // Nobody reads: the transfer waits, paused, with at most its window in memory.
                #expect(await eventually { channel.bufferedBytes.memory > 0 })
                for _ in 0..<20 {
                    try await Task.sleep(for: .milliseconds(25))
                    let buffered = channel.bufferedBytes
                    #expect(buffered.memory <= policy.highWaterMark)
                    #expect(buffered.spilled == 0)
                }
                #expect(await manager.activeTransferCount == 1)
            } else {
                // Let the whole body arrive while nobody reads.
                #expect(await eventually { await manager.activeTransferCount == 0 })
                let buffered = channel.bufferedBytes
                #expect(buffered.memory <= policy.highWaterMark + 64 << 10)
                #expect(buffered.spilled > 0)
            }
            var body = Data()
            for try await event in handle.events { if case .data(let d) = event { body.append(d) } }
            #expect(body.count == size)
            #expect(body == SeededBytes.data(seed: 11, offset: 0, count: size))
        }
    }

    /// With spilling off, URLSession's unread body overflows the buffer; curl's flow control keeps
    /// it under the limit, so the same slow read gets the whole body.
    @Test func failOverflowPolicyEndsTheTransferWithBufferLimitExceeded() async throws {
        try await withServerAndManager { server, manager in
            let policy = BufferPolicy(highWaterMark: 64 << 10, lowWaterMark: 0, overflow: .fail)
            let size = 4 << 20
            let handle = try await manager.dataTask(
                with: URLRequest(url: server.url("/bytes/\(size)")), options: TransferOptions(buffer: policy)
            )
            if manager.transport == .curl {
                var received = 0
                for try await event in handle.events {
                    if case .data(let d) = event { received += d.count }
                    if received % (1 << 20) < 16 << 10 { try await Task.sleep(for: .milliseconds(5)) }
                }
                #expect(received == size)
            } else {
                #expect(await eventually { await manager.activeTransferCount == 0 })
                let error = await expectNetworkingError { try await collectEvents(handle) }
                #expect(error?.kind == .bufferLimitExceeded(limit: 64 << 10))
            }
        }
    }

    @Test func concurrencyLimitIsRespected() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 3) { server, manager in
            server.resetStats()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<12 {
                    let url = server.url("/delay/300") // long enough for three to overlap on a busy machine
                    group.addTask { _ = try await manager.data(from: url) }
                }
                try await group.waitForAll()
            }
            #expect(server.stats.maxInFlight <= 3)
            #expect(await manager.peakRunningTransferCount == 3)
        }
    }
}
