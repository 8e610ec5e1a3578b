@testable import AsyncNetworkingTestSupport

@Suite("Batch: aggregate progress against the server")
struct BatchProgressTests {
    /// A stream that keeps every value, to check the whole history.
    private func everyValue() -> (AsyncStream<BatchProgress>, AsyncStream<BatchProgress>.Continuation) {
        let (stream, continuation) = AsyncStream.makeStream(of: BatchProgress.self)
        return (stream, continuation)
    }

    @Test func progressReachesTheTotal() async throws {
        try await withServerAndManager { server, manager in
            let size = 200_000
            let members = (0..<6).map { BatchFixtures.seeded(server, size: size, seed: 100 + $0) }
            let (stream, reporter) = everyValue()
            async let history = collectProgress(stream)
            let results = try await manager.data(for: members.map(\.0), width: 3, progress: reporter)
            let values = await history
            for (result, member) in zip(results, members) { #expect(result.0 == member.1) }

            let first = try #require(values.first)
            #expect(first.totalCount == 6 && first.finishedCount == 0 && first.download.completedBytes == 0)
            #expect(first.fractionCompleted == 0)
            let last = try #require(values.last)
            #expect(last.isFinished && last.finishedCount == 6 && last.failedCount == 0)
            #expect(last.download == TransferProgress(completedBytes: Int64(6 * size), expectedBytes: Int64(6 * size)))
            #expect(last.fractionCompleted == 1)
            #expect(values.contains { !$0.isFinished && $0.download.completedBytes > 0 }, "progress moves while members run")
            for (earlier, later) in zip(values, values.dropFirst()) {
                #expect(later.download.completedBytes >= earlier.download.completedBytes)
                #expect(later.finishedCount >= earlier.finishedCount)
                #expect(later.fractionCompleted >= earlier.fractionCompleted - 1e-9)
            }
        }
    }

    @Test func unknownSizesLeaveExpectedBytesNilUntilThoseMembersEnd() async throws {
        try await withServerAndManager { server, manager in
            let (known, knownBody) = BatchFixtures.seeded(server, size: 50_000, seed: 1)
            let chunked = URLRequest(url: server.url("/stream/300000?chunk=1000"))
            let (stream, reporter) = everyValue()
            async let history = collectProgress(stream)
            let results = try await manager.data(for: [known, chunked], width: 2, progress: reporter)
            let values = await history
            #expect(results[0].0 == knownBody)
            #expect(results[1].0.count == 300_000)
            #expect(values.contains { !$0.isFinished && $0.download.expectedBytes == nil }, "a chunked body has no known size")
            let last = try #require(values.last)
            #expect(last.download == TransferProgress(completedBytes: 350_000, expectedBytes: 350_000))
            #expect(last.fractionCompleted == 1)
        }
    }

    @Test func failuresCountAsFinishedAndTheStreamEnds() async throws {
        try await withServerAndManager { server, manager in
            let (ok, body) = BatchFixtures.seeded(server, size: 10_000, seed: 9)
            let requests = [ok, BatchFixtures.unsupportedScheme, URLRequest(url: server.url("/fault/reset"))]
            let (progress, reporter) = BatchProgress.makeStream()
            async let last = collectProgress(progress).last
            let results = await manager.settledData(for: requests, progress: reporter)
            #expect((try? results[0].get())?.0 == body)
            let final = try #require(await last)
            #expect(final.isFinished && final.finishedCount == 3 && final.failedCount == 2)
            #expect(final.download.completedBytes == 10_000)
            #expect(final.fractionCompleted == 1)
        }
    }

    @Test func uploadBytesAreSummed() async throws {
        try await withServerAndManager { server, manager in
            let requests = (0..<3).map { i in
                var request = URLRequest(url: server.url("/upload?i=\(i)"))
                request.httpMethod = "POST"
                request.httpBody = Data(repeating: UInt8(i), count: 100_000)
                return request
            }
            let (progress, reporter) = BatchProgress.makeStream()
            async let last = collectProgress(progress).last
            let results = try await manager.data(for: requests, width: 3, progress: reporter)
            #expect(results.allSatisfy { $0.1.statusCode == 200 })
            #expect(server.requests.filter { $0.path == "/upload" }.allSatisfy { $0.bodyLength == 100_000 })
            let final = try #require(await last)
            #expect(final.upload == TransferProgress(completedBytes: 300_000, expectedBytes: 300_000))
        }
    }

    @Test func theCoalescingStreamKeepsOnlyTheNewestValue() async throws {
        try await withServerAndManager { server, manager in
            let members = (0..<5).map { BatchFixtures.seeded(server, size: 20_000, seed: $0) }
            let (progress, reporter) = BatchProgress.makeStream()
            _ = try await manager.data(for: members.map(\.0), progress: reporter)
            // Nobody read while the batch ran: only the final value is left.
            let values = await collectProgress(progress)
            #expect(values.count == 1)
            #expect(values.first?.isFinished == true)
            #expect(values.first?.download.completedBytes == 100_000)
        }
    }
}
