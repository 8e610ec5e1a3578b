@testable import AsyncNetworkingTestSupport

/// An `AsyncSequence` body on curl goes out as it is produced (no temporary file), with the
/// producer held back while the connection cannot take more; one that must be sent again is asked
/// for again through its factory, or refused with a typed error.
@Suite("Streamed sequence uploads", .enabled(if: defaultTransportIsCurl, "curl streams sequence bodies; URLSession spools them (see the last test)"))
struct StreamedSequenceUploadTests {
    struct Boom: Error {}

    @Test func bytesLeaveAsTheSequenceProducesThem() async throws {
        let server = try BodyTapServer()
        defer { server.stop() }
        let manager = SessionManager()
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        var request = URLRequest(url: server.url("/tap"))
        request.httpMethod = "POST"
        let upload = Task { try await manager.upload(for: request, from: chunks) }
        producer.yield(Data(repeating: 1, count: 1_000))
        // The sequence has not ended: the server already has its first chunk.
        #expect(await eventually { server.received == 1_000 })
        producer.yield(Data(repeating: 2, count: 2_000))
        #expect(await eventually { server.received == 3_000 })
        producer.finish()
        let (body, response) = try await withDeadline { try await upload.value }
        #expect(response.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self) == "got 3000")
        await manager.invalidateAndCancel()
    }

    @Test func aServerThatStopsReadingHoldsTheProducerBack() async throws {
        let server = try BodyTapServer(stalled: true)
        defer { server.stop() }
        let manager = SessionManager()
        let produced = SanitizedMutex(0)
        // Pull-based: a chunk is made only when the upload asks for the next one.
        let endless = EndlessChunks(produced: produced)
        var request = URLRequest(url: server.url("/tap"))
        request.httpMethod = "POST"
        let upload = Task { try await manager.upload(for: request, from: endless) }
        // Production stops (the pipe is full, the socket buffers are full) and stays bounded: a
        // spooling or unbounded body would keep producing until the deadline.
        #expect(await eventually {
            let before = produced.withLock { $0 }
            try? await Task.sleep(for: .milliseconds(500))
            return before > 0 && produced.withLock { $0 } == before
        })
        #expect(produced.withLock { $0 } < 64 << 20, "bounded by the pipe and the socket buffers, not by the body")
        upload.cancel()
        let error = await expectNetworkingError { try await upload.value }
        #expect(error?.kind == .cancelled)
        let stoppedAt = produced.withLock { $0 }
        try await Task.sleep(for: .milliseconds(200))
        #expect(produced.withLock { $0 } == stoppedAt, "nothing more is asked of the sequence after the cancel")
        await manager.invalidateAndCancel()
    }

    @Test(arguments: [307, 308])
    func aReSendAsksTheFactoryAgainAndRefusesASingleSequence(status: Int) async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/redirect-to?url=/upload&status=\(status)"))
            request.httpMethod = "POST"
            let made = SanitizedMutex(0)
            let (body, _) = try await manager.upload(for: request, fromSequence: {
                made.withLock { $0 += 1 }
                return TransfersUploadTests.chunks(count: 300_000)
            })
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["bytes"] as? Int == 300_000)
            #expect(json["checksum"] as? String == String(TransfersSupport.checksum(seed: 9, count: 300_000)))
            #expect(json["chunked"] as? Bool == true, "streamed, not spooled")
            #expect(made.withLock { $0 } == 2, "one sequence per attempt")

            let once = await expectNetworkingError {
                try await manager.upload(for: request, from: TransfersUploadTests.chunks(count: 300_000))
            }
            #expect(once?.kind == .bodyStreamNotReplayable)
        }
    }

    @Test func aSequenceThatThrowsFailsWithItsError() async throws {
        try await withServerAndManager { server, manager in
            let failing = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data(repeating: 1, count: 50_000))
                continuation.finish(throwing: Boom())
            }
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let error = await expectNetworkingError { try await manager.upload(for: request, from: failing) }
            #expect(error?.kind == .requestSerializationFailed)
            #expect(error?.underlyingError is Boom)
        }
    }

    @Test func progressCountsWhatWasSentWithoutAKnownTotal() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let handle = try await manager.uploadTask(with: request, from: TransfersUploadTests.chunks(count: 1_000_000))
            var progress: [TransferProgress] = []
            var body = Data()
            for try await event in handle.events {
                if let value = event.uploadProgressValue { progress.append(value) }
                if case .data(let chunk) = event { body.append(chunk) }
            }
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["bytes"] as? Int == 1_000_000)
            #expect(progress.last?.completedBytes ?? 0 >= 1_000_000, "chunk framing may add a few bytes")
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
        }
    }
}

/// On URLSession a "streamed" sequence is spooled: FoundationNetworking would read it inside a
/// process-wide lock. Both transports deliver the whole body.
@Suite("Sequence uploads on every transport")
struct SequenceUploadModeTests {
    @Test func theDefaultModeStreamsOnCurlAndSpoolsElsewhere() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let (body, _) = try await manager.upload(for: request, from: TransfersUploadTests.chunks(count: 500_000))
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["bytes"] as? Int == 500_000)
            #expect(json["chunked"] as? Bool == (manager.transport == .curl))
        }
    }
}

/// 64 KiB chunks for ever, each made when asked for, counted in `produced`.
struct EndlessChunks: AsyncSequence, Sendable {
    let produced: SanitizedMutex<Int>

    struct AsyncIterator: AsyncIteratorProtocol {
        let produced: SanitizedMutex<Int>
        mutating func next() async -> Data? {
            produced.withLock { $0 += 64 * 1024 }
            return Data(repeating: 3, count: 64 * 1024)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(produced: produced) }
}
