@testable import AsyncNetworkingTestSupport

/// Uploads, downloads and `HTTPTask` (progress and a value from one call) through the client.
@Suite("HTTPClient: uploads, downloads and tasks")
struct HTTPClientTransferTests {
    struct Uploaded: Decodable, Sendable, Equatable {
        let bytes: Int
        let checksum: String
    }

    /// A new directory and a client (``withClient``) whose default headers hold `X-Default: d`.
    static func withDirectoryAndClient(_ body: @escaping @Sendable (URL, LoopbackServer, HTTPClient) async throws -> Void) async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withClient { server, client in
                var client = client
                client.defaultHeaders["X-Default"] = "d"
                try await body(directory, server, client)
            }
        }
    }

    static let payload = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    static var expected: Uploaded { Uploaded(bytes: payload.count, checksum: String(Checksum.fnv1a64(payload))) }

    @Test func dataFileAndStreamUploadGoRelativeWithDefaultHeadersAndASerializedReply() async throws {
        try await Self.withDirectoryAndClient { directory, server, client in
            let file = directory.appendingPathComponent("body.bin")
            try Self.payload.write(to: file)
            let payload = Self.payload
            let bodies: [UploadBody] = [
                .data(payload), .file(file), .stream(length: Int64(payload.count)) { InputStream(data: payload) },
                .stream(length: Int64(payload.count), mode: .chunked) { InputStream(data: payload) },
            ]
            for body in bodies {
                #expect(try await client.upload(body, to: "upload", as: Uploaded.self) == Self.expected)
            }
            let put = try await client.upload(.data(payload), to: "upload", method: .put, headers: ["X-Call": "c"], serializer: JSONResponseSerializer())
            #expect(put["bytes"] == .int(payload.count))
            let requests = server.requests
            #expect(requests.map(\.path) == Array(repeating: "/upload", count: 5))
            #expect(requests.map(\.method) == ["POST", "POST", "POST", "POST", "PUT"])
            #expect(requests.allSatisfy { $0.header("X-Default") == "d" })
            #expect(requests.last?.header("X-Call") == "c")
            let failed = await #expect(throws: NetworkingError.self) {
                try await client.upload(.data(payload), to: "status/503", as: Uploaded.self)
            }
            #expect(failed?.kind == .unacceptableStatusCode(503))
        }
    }

    @Test func anUploadTaskStreamsProgressAndThenItsValue() async throws {
        try await withClient { _, client in
            let task = try await client.uploadTask(.data(Self.payload), to: "upload?pace=1", as: Uploaded.self)
            var progress: [TransferProgress] = []
            var sawResponse = false
            for await event in task.events {
                switch event {
                case .uploadProgress(let value): progress.append(value)
                case .response(let response): sawResponse = response.statusCode == 200
                case .downloadProgress: break
                }
            }
            #expect(TransfersSupport.isMonotonic(progress, endingAt: Int64(Self.payload.count)), "\(progress.suffix(3))")
            #expect(sawResponse)
            #expect(try await task.value == Self.expected)
            let response = try await task.response
            #expect(response.statusCode == 200 && response.metrics.bytesSent == Int64(Self.payload.count))
        }
    }

    @Test func everyVerbHasATaskFormWithDownloadProgressAndAValue() async throws {
        try await withClient { server, client in
            for method in [HTTPMethod.get, .post, .put, .patch, .delete] {
                let echo = try await client.task(method, "echo", parameters: ["k": "v"], as: Echo.self)
                #expect(try await echo.value.method == method.rawValue)
            }
            let bytes = try await client.task(.get, "bytes/300000", serializer: DataResponseSerializer())
            var last: TransferProgress?
            for await case .downloadProgress(let value) in bytes.events { last = value }
            #expect(try await bytes.value.count == 300_000)
            #expect(last?.completedBytes == 300_000)
            let untyped = try await client.task(.get, "json")
            #expect(try await untyped.value as? JSONValue == ["ok": true, "numbers": [1, 2, 3], "name": "loopback"])
            #expect(server.requests.count == 7)
        }
    }

    @Test func cancellingTheHandleOrTheAwaitingTaskCancelsTheTransfer() async throws {
        try await withClient { _, client in
            let handle = try await client.task(.get, "delay/\(neverEnding)", serializer: DataResponseSerializer())
            handle.cancel()
            let cancelled = await #expect(throws: NetworkingError.self) { try await handle.value }
            #expect(cancelled?.kind == .cancelled)

            let second = try await client.task(.get, "delay/\(neverEnding)", serializer: DataResponseSerializer())
            let waiter = Task { try await second.value }
            waiter.cancel()
            let outcome = await waiter.result
            if case .failure(let error) = outcome {
                #expect((error as? NetworkingError)?.kind == .cancelled)
            } else {
                Issue.record("the cancelled wait returned a value")
            }
            #expect(await eventually { await client.manager.activeTransferCount == 0 })

            let third = try await client.task(.get, "delay/\(neverEnding)", serializer: DataResponseSerializer())
            let reader = Task { for await _ in third.events {} }
            reader.cancel()
            let stopped = await #expect(throws: NetworkingError.self) { try await third.value }
            #expect(stopped?.kind == .cancelled, "cancelling the events reader cancels the transfer")
        }
    }

    @Test func droppingEveryCopyOfTheHandleCancelsTheTransfer() async throws {
        try await withClient { _, client in
            do {
                let dropped = try await client.task(.get, "delay/\(neverEnding)", serializer: DataResponseSerializer())
                #expect(await client.manager.activeTransferCount == 1)
                _ = dropped.transfer.id
            }
            #expect(await eventually { await client.manager.activeTransferCount == 0 })
        }
    }

    @Test func downloadsGoRelativeWithHeadersToTheirDestinationWithProgress() async throws {
        try await Self.withDirectoryAndClient { directory, server, client in
            let target = directory.appendingPathComponent("one.bin")
            let saved = try await client.download("bytes/5000", parameters: ["seed": 3], to: .file(target))
            #expect(saved.value == target && saved.statusCode == 200 && saved.data.isEmpty)
            #expect(try Data(contentsOf: target).count == 5000)
            #expect(server.requests.last?.target == "/bytes/5000?seed=3")
            #expect(server.requests.last?.header("X-Default") == "d")

            let task = try await client.downloadTask("bytes/250000", to: .directory(directory))
            var last: TransferProgress?
            for await case .downloadProgress(let value) in task.events { last = value }
            let file = try await task.value
            #expect(file.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL)
            #expect(TransfersSupport.checksumOfFileSize(file) == 250_000)
            #expect(last?.completedBytes == 250_000)

            let missing = await #expect(throws: NetworkingError.self) {
                try await client.download("status/404", to: .file(directory.appendingPathComponent("no.bin")))
            }
            #expect(missing?.kind == .unacceptableStatusCode(404))
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("no.bin").path))
        }
    }
}

extension TransfersSupport {
    /// The size of the file at `url`, or -1.
    static func checksumOfFileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? -1
    }
}
