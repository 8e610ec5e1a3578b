@testable import AsyncNetworkingTestSupport

/// Every upload source, with its progress, against `/upload`. Serialized: these tests count the
/// temporary files AsyncNetworking leaves in the system temporary directory (none).
@Suite("Transfers uploads", .serialized)
struct TransfersUploadTests {
    enum Source: String, CaseIterable, Sendable {
        case data, file, sequence, streamSpooled, streamChunked
    }

    static let count = 3 << 20 + 12_345

    /// Chunks of the seeded body, made on demand by a lazy async sequence.
    static func chunks(count: Int = count, seed: UInt64 = 9, size: Int = 100_000) -> SeededChunks {
        SeededChunks(count: count, seed: seed, size: size)
    }

    func start(_ source: Source, _ manager: SessionManager, _ request: URLRequest, directory: URL) async throws -> TransferHandle {
        let count = Self.count
        switch source {
        case .data:
            return try await manager.uploadTask(with: request, from: SeededBytes.data(seed: 9, offset: 0, count: count))
        case .file:
            let file = directory.appendingPathComponent("body.bin")
            try TransfersSupport.writeSeeded(file, seed: 9, count: count)
            return try await manager.uploadTask(with: request, fromFile: file)
        case .sequence:
            return try await manager.uploadTask(with: request, from: Self.chunks(), mode: .spooled)
        case .streamSpooled, .streamChunked:
            let file = directory.appendingPathComponent("stream.bin")
            try TransfersSupport.writeSeeded(file, seed: 9, count: count)
            return try await manager.uploadTask(
                with: request, fromStream: { InputStream(url: file)! }, length: Int64(count),
                mode: source == .streamSpooled ? .spooled : .chunked
            )
        }
    }

    @Test(arguments: Source.allCases)
    func uploadProgressIsMonotonicAndEndsAtTheTotal(source: Source) async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let before = TransfersSupport.temporaryFiles(kinds: ["upload"])
                var request = URLRequest(url: server.url("/upload"))
                request.httpMethod = "POST"
                let handle = try await start(source, manager, request, directory: directory)
                var progress: [TransferProgress] = []
                var body = Data()
                for try await event in handle.events {
                    if let value = event.uploadProgressValue { progress.append(value) }
                    if case .data(let chunk) = event { body.append(chunk) }
                }
                let total = Int64(Self.count)
                #expect(TransfersSupport.isMonotonic(progress, endingAt: total), "\(progress.suffix(3))")
                #expect(progress.last?.expectedBytes == total)
                let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                #expect(json["bytes"] as? Int == Self.count)
                #expect(json["checksum"] as? String == String(TransfersSupport.checksum(seed: 9, count: Self.count)))
                #expect(json["chunked"] as? Bool == (source == .streamChunked))
                #expect(await eventually { Set(TransfersSupport.temporaryFiles(kinds: ["upload"])).isSubset(of: Set(before)) }, "the spooled body was deleted")
            }
        }
    }

    struct Boom: Error {}

    @Test func sequenceThatThrowsFailsWithItsErrorAndLeavesNoFile() async throws {
        try await withServerAndManager { server, manager in
            let before = TransfersSupport.temporaryFiles(kinds: ["upload"])
            let failing = AsyncThrowingStream<Data, any Error> { continuation in
                continuation.yield(Data(repeating: 1, count: 50_000))
                continuation.finish(throwing: Boom())
            }
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let error = await expectNetworkingError { try await manager.upload(for: request, from: failing, mode: .spooled) }
            #expect(error?.kind == .requestSerializationFailed)
            #expect(error?.underlyingError is Boom)
            #expect(await eventually { Set(TransfersSupport.temporaryFiles(kinds: ["upload"])).isSubset(of: Set(before)) })
            #expect(TransfersSupport.requests(server, path: "/upload").isEmpty, "nothing was sent")
        }
    }

    @Test func spooledSequenceIsResentAfterA307() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/redirect-to?url=/upload&status=307"))
            request.httpMethod = "POST"
            let (body, _) = try await manager.upload(for: request, from: Self.chunks(count: 300_000), mode: .spooled)
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["bytes"] as? Int == 300_000)
            #expect(json["checksum"] as? String == String(TransfersSupport.checksum(seed: 9, count: 300_000)))
        }
    }

    @Test func chunkedStreamFactoryIsReplayedAfterA308() async throws {
        try await withServerAndManager { server, manager in
            let payload = SeededBytes.data(seed: 2, offset: 0, count: 200_000)
            var request = URLRequest(url: server.url("/redirect-to?url=/upload&status=308"))
            request.httpMethod = "POST"
            let (body, _) = try await manager.upload(for: request, fromStream: { InputStream(data: payload) }, mode: .chunked)
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["bytes"] as? Int == payload.count)
            #expect(json["chunked"] as? Bool == true)
        }
    }

    @Test func cancellingWhileASlowSequenceIsSpooledDeletesTheFileAndSendsNothing() async throws {
        try await withServerAndManager { server, manager in
            let before = TransfersSupport.temporaryFiles(kinds: ["upload"])
            let slow = AsyncStream<Data> { continuation in
                let task = Task {
                    // Never ends by itself: only the cancel can stop the spooling.
                    while !Task.isCancelled {
                        continuation.yield(Data(repeating: 7, count: 20_000))
                        try? await Task.sleep(for: .milliseconds(20))
                        if Task.isCancelled { break }
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let upload = Task { try await manager.upload(for: request, from: slow, mode: .spooled) }
            // Other tests (and other processes) may spool uploads too: look for a new file, not a count.
            #expect(await eventually { !Set(TransfersSupport.temporaryFiles(kinds: ["upload"])).subtracting(before).isEmpty })
            upload.cancel()
            let error = await expectNetworkingError { try await upload.value }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { Set(TransfersSupport.temporaryFiles(kinds: ["upload"])).isSubset(of: Set(before)) })
            #expect(TransfersSupport.requests(server, path: "/upload").isEmpty)
        }
    }

    @Test func cancellingASpooledUploadDeletesItsFile() async throws {
        try await withServerAndManager { server, manager in
            let before = TransfersSupport.temporaryFiles(kinds: ["upload"])
            var request = URLRequest(url: server.url("/delay/\(neverEnding)"))
            request.httpMethod = "POST"
            let handle = try await manager.uploadTask(with: request, from: Self.chunks(count: 100_000), mode: .spooled)
            #expect(!Set(TransfersSupport.temporaryFiles(kinds: ["upload"])).subtracting(before).isEmpty, "spooled while the transfer runs")
            handle.cancel()
            let error = await expectNetworkingError { _ = try await collectEvents(handle) }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { Set(TransfersSupport.temporaryFiles(kinds: ["upload"])).isSubset(of: Set(before)) })
        }
    }
}
