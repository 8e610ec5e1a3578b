@testable import AsyncNetworkingTestSupport

@Suite("Transfer events against LoopbackServer")
struct TransferEventTests {
    @Test func dataTransferDeliversResponseDataProgressAndCompletionInOrder() async throws {
        try await withServerAndManager { server, manager in
            let size = 200_000
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(size)")))
            var body = Data()
            var names: [String] = []
            var lastProgress: TransferProgress?
            var metrics: TransferMetrics?
            for try await event in handle.events {
                names.append(event.name)
                switch event {
                case .response(let response):
                    #expect(response.statusCode == 200)
                    #expect(body.isEmpty, "the response comes before any data")
                case .data(let chunk): body.append(chunk)
                case .downloadProgress(let progress):
                    if let lastProgress { #expect(progress.completedBytes >= lastProgress.completedBytes) }
                    lastProgress = progress
                case .completed(let m): metrics = m
                default: break
                }
            }
            #expect(body == BytePattern.data(offset: 0, count: size))
            #expect(names.first == "response")
            #expect(names.last == "completed")
            #expect(names.filter { $0 == "completed" }.count == 1)
            #expect(lastProgress == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
            #expect(metrics?.bytesReceived == Int64(size))
            #expect(metrics?.timeToResponse != nil)
            #expect(metrics?.timeToFirstByte != nil)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func uploadDeliversMonotonicUploadProgressEndingAtTheTotal() async throws {
        try await withServerAndManager { server, manager in
            let body = SeededBytes.data(seed: 7, offset: 0, count: 1_500_000)
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let handle = try await manager.uploadTask(with: request, from: body)
            var uploads: [TransferProgress] = []
            var names: [String] = []
            var responseBody = Data()
            for try await event in handle.events {
                names.append(event.name)
                if case .uploadProgress(let progress) = event { uploads.append(progress) }
                if case .data(let chunk) = event { responseBody.append(chunk) }
            }
            #expect(!uploads.isEmpty)
            #expect(zip(uploads, uploads.dropFirst()).allSatisfy { $0.completedBytes <= $1.completedBytes })
            #expect(uploads.last == TransferProgress(completedBytes: Int64(body.count), expectedBytes: Int64(body.count)))
            let firstResponse = try #require(names.firstIndex(of: "response"))
            #expect(names.lastIndex(of: "uploadProgress")! < firstResponse, "upload progress precedes the response")
            let json = try JSONSerialization.jsonObject(with: responseBody) as? [String: Any]
            #expect(json?["bytes"] as? Int == body.count)
            #expect(json?["checksum"] as? String == String(Checksum.fnv1a64(body)))
        }
    }

    @Test func noEventIsMissedWhenIterationStartsLate() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/5000")))
            // The transfer completes long before anyone reads: everything must still be there.
            #expect(await eventually { await manager.activeTransferCount == 0 })
            let events = try await collectEvents(handle)
            let body = events.reduce(into: Data()) { if case .data(let d) = $1 { $0.append(d) } }
            #expect(body.count == 5000)
            #expect(events.first?.name == "response")
            #expect(events.last?.name == "completed")
        }
    }

    @Test func manyInstantResponsesNeverLoseTheirEvents() async throws {
        try await withServerAndManager { server, manager in
            for _ in 0..<50 {
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/status/204")))
                let events = try await collectEvents(handle)
                #expect(events.map(\.name) == ["response", "downloadProgress", "completed"])
            }
        }
    }

    @Test func emptyBodyStillReportsFinalProgress() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/0")))
            let events = try await collectEvents(handle)
            guard case .downloadProgress(let progress) = events.first(where: { $0.name == "downloadProgress" }) else {
                Issue.record("no download progress"); return
            }
            #expect(progress.completedBytes == 0)
        }
    }

    @Test func dataForRequestReturnsBodyAndResponse() async throws {
        try await withServerAndManager { server, manager in
            let (body, response) = try await manager.data(from: server.url("/bytes/100000?seed=3"))
            #expect(response.statusCode == 200)
            #expect(body == SeededBytes.data(seed: 3, offset: 0, count: 100_000))
            let (notFound, response404) = try await manager.data(from: server.url("/status/404"))
            #expect(response404.statusCode == 404, "data(for:) returns any status; validation is the HTTP layer's")
            #expect(String(decoding: notFound, as: UTF8.self) == "status 404")
        }
    }

    @Test func streamForRequestYieldsTheBodyInChunks() async throws {
        try await withServerAndManager { server, manager in
            // Larger than any one delivery (curl joins a loop turn's chunks, up to its window).
            let size = 16 << 20
            let (body, response) = try await manager.stream(from: server.url("/stream/\(size)?chunk=7000"))
            #expect(response.statusCode == 200)
            var received = Data()
            var chunks = 0
            for try await chunk in body {
                received.append(chunk)
                chunks += 1
            }
            #expect(received == BytePattern.data(offset: 0, count: size))
            #expect(chunks > 1)
        }
    }

    @Test func chunkedSlowDripArrivesWhole() async throws {
        try await withServerAndManager { server, manager in
            let (body, _) = try await manager.data(from: server.url("/drip?bytes=20&chunks=5&delay=20"))
            #expect(body.count == 20)
        }
    }

    @Test func interimContinueResponseIsIgnored() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/continue")))
            var responses: [Int] = []
            var body = Data()
            for try await event in handle.events {
                if case .response(let r) = event { responses.append(r.statusCode) }
                if case .data(let d) = event { body.append(d) }
            }
            #expect(responses == [200])
            #expect(String(decoding: body, as: UTF8.self) == "after continue")
        }
    }

    @Test func maxResponseBytesFailsFromContentLengthAndWhileStreaming() async throws {
        try await withServerAndManager { server, manager in
            let declared = await expectNetworkingError {
                try await manager.data(from: server.url("/bytes/10000"), options: TransferOptions(maxResponseBytes: 1000))
            }
            #expect(declared?.kind == .responseTooLarge(limit: 1000))
            #expect(declared?.response?.statusCode == 200)
            let streamed = await expectNetworkingError {
                try await manager.data(from: server.url("/stream/10000"), options: TransferOptions(maxResponseBytes: 1000))
            }
            #expect(streamed?.kind == .responseTooLarge(limit: 1000))
            #expect(await manager.activeTransferCount == 0)
        }
    }
}
