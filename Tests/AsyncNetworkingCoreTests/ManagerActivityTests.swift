@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// The manager-wide activity stream: every transfer observed at once.
@Suite("Manager: observing every transfer")
struct ManagerActivityTests {
    @Test func aLargeDownloadYieldsFarFewerProgressEventsThanChunksAndTheLastReportsEveryByte() async throws {
        try await withServerAndManager { server, manager in
            let recorder = ActivityRecorder(await manager.transferActivity())
            defer { recorder.stop() }
            let count = 64 << 20
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(count)")))
            var chunks = 0
            var bytes = 0
            for try await event in handle.events {
                if case .data(let chunk) = event { chunks += 1; bytes += chunk.count }
            }
            #expect(bytes == count)
            let done = try #require(await recorder.completion(of: handle.id))
            #expect(done.error == nil && done.response?.statusCode == 200 && done.kind == .data)
            #expect(done.metrics?.bytesReceived == Int64(count))
            let events = recorder.events(of: handle.id)
            #expect(events.first?.name == "started")
            #expect(events.filter { $0.name == "response" }.count == 1)
            #expect(events.last?.name == "completed")
            let progress = events.compactMap(\.downloadProgress)
            #expect(progress.last == TransferProgress(completedBytes: Int64(count), expectedBytes: Int64(count)))
            #expect(progress.map(\.completedBytes) == progress.map(\.completedBytes).sorted())
            #expect(progress.count >= 2)
            // Throttled: one event per 2 % of the body, plus at most one per second the transfer
            // took — however the body was chunked. (The bound grows with a slow machine; it is not
            // a speed claim.) curl reads 16 KiB per callback, 4096 reads here, and joins them into
            // up to 1 MiB deliveries per loop turn; URLSession delivers its 16 KiB chunks as they are.
            let seconds = Int((done.metrics?.duration ?? .zero) / .seconds(1)) + 1
            #expect(progress.count <= Int(ProgressThrottle.stepsPerTotal) + 2 + seconds, "\(progress.count) events in \(seconds) s")
            if manager.transport == .urlSession {
                #expect(progress.count * 4 < chunks, "\(progress.count) progress events for \(chunks) chunks")
            } else {
                #expect(progress.count * 4 < count / (16 << 10), "\(progress.count) progress events for \(count / (16 << 10)) curl reads")
            }
            #expect(recorder.stream.droppedCount == 0)
        }
    }

    @Test func uploadProgressIsObservedAndTheLastReportsEveryByte() async throws {
        try await withServerAndManager { server, manager in
            let recorder = ActivityRecorder(await manager.transferActivity())
            defer { recorder.stop() }
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let size = 8 << 20
            let (_, response) = try await manager.upload(for: request, from: Data(count: size))
            #expect(response.statusCode == 200)
            let ids = await recorder.transferIDs(atLeast: 1)
            let id = try #require(ids.first)
            #expect(ids.count == 1)
            let done = try #require(await recorder.completion(of: id))
            #expect(done.kind == .upload && done.error == nil)
            let progress = recorder.events(of: id).compactMap(\.uploadProgress)
            #expect(progress.last == TransferProgress(completedBytes: Int64(size), expectedBytes: Int64(size)))
            #expect(progress.map(\.completedBytes) == progress.map(\.completedBytes).sorted())
        }
    }

    @Test func redirectsAreObservedAndTheCompletionCarriesTheFinalResponse() async throws {
        try await withServerAndManager { server, manager in
            let recorder = ActivityRecorder(await manager.transferActivity())
            defer { recorder.stop() }
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/redirect/2")))
            _ = try await collectEvents(handle)
            let done = try #require(await recorder.completion(of: handle.id))
            let events = recorder.events(of: handle.id)
            let redirects = events.compactMap { event -> (Int, URL?)? in
                if case .redirected(_, let response, let request) = event { return (response.statusCode, request.url) }
                return nil
            }
            #expect(redirects.count == 2)
            #expect(redirects.allSatisfy { (300..<400).contains($0.0) })
            #expect(done.response?.statusCode == 200)
            #expect(done.metrics?.redirectCount == 2)
            #expect(events.map(\.name).firstIndex(of: "redirected")! < events.map(\.name).firstIndex(of: "response")!)
        }
    }

    @Test func aFailedDownloadCompletesWithItsErrorAndResponse() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let recorder = ActivityRecorder(await manager.transferActivity())
                defer { recorder.stop() }
                let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/status/404")), to: .directory(directory))
                let error = await expectNetworkingError { _ = try await collectEvents(handle) }
                #expect(error?.kind == .unacceptableStatusCode(404))
                let done = try #require(await recorder.completion(of: handle.id))
                #expect(done.kind == .download)
                #expect(done.error?.kind == .unacceptableStatusCode(404))
                #expect(done.response?.statusCode == 404)
                #expect(done.fileURL == nil)
            }
        }
    }

    @Test func aResumedDownloadReportsItsOffsetAndTotalAndItsFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let recorder = ActivityRecorder(await manager.transferActivity())
                defer { recorder.stop() }
                let count = 4 << 20
                let target = directory.appendingPathComponent("resumed.bin")
                let (url, response) = try await manager.download(
                    from: server.url("/bytes/\(count)?seed=7&drop=1500000"), to: .file(target),
                    options: DownloadOptions(resumable: true)
                )
                #expect(response.statusCode == 206)
                // Two transfers: the first failed when the connection dropped; the second resumed.
                let ids = await recorder.transferIDs(atLeast: 2)
                #expect(ids.count == 2)
                let first = try #require(await recorder.completion(of: ids[0]))
                #expect(first.error != nil && first.fileURL == nil)
                let second = try #require(await recorder.completion(of: ids[1]))
                #expect(second.error == nil && second.fileURL == url && second.response?.statusCode == 206)
                let resumed = recorder.events(of: ids[1]).compactMap { event -> (Int64, Int64?)? in
                    if case .downloadResumed(_, let offset, let total) = event { return (offset, total) }
                    return nil
                }
                #expect(resumed.count == 1)
                let kept = try #require(first.error?.fileURL).path // the partial file the first one kept
                #expect(!kept.isEmpty)
                #expect(resumed.first.map { $0.0 > 0 && $0.0 <= 1_500_000 } == true, "\(resumed)")
                #expect(resumed.first?.1 == Int64(count))
                let progress = recorder.events(of: ids[1]).compactMap(\.downloadProgress)
                #expect(progress.last?.completedBytes == Int64(count), "a download's progress counts the bytes kept on disk")
                #expect(progress.first.map { $0.completedBytes >= resumed.first!.0 } == true)
            }
        }
    }

    @Test func invalidationIsTheLastEvent() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        try await withDeadline {
            let manager = SessionManager()
            let recorder = ActivityRecorder(await manager.transferActivity())
            _ = try await manager.data(from: server.url("/bytes/10"))
            await manager.invalidateAndCancel()
            await recorder.finished()
            guard case .invalidated(let error) = recorder.all.last else {
                Issue.record("the last event is \(recorder.all.last.map(\.name) ?? "none")")
                return
            }
            #expect(error == nil, "invalidated on purpose")
            // A stream asked for afterwards ends at once with the same event.
            var late = await manager.transferActivity().makeAsyncIterator()
            let only = await late.next()
            #expect(only?.name == "invalidated")
            #expect(await late.next() == nil)
        }
    }

    @Test func aReaderThatNeverReadsNeverBlocksATransferAndItsDropsAreCounted() async throws {
        try await withServerAndManager { server, manager in
            let stalled = await manager.transferActivity(bufferingNewest: 4)
            for _ in 0..<20 {
                let (body, _) = try await manager.data(from: server.url("/bytes/10"))
                #expect(body.count == 10)
            }
            // A call on the actor runs after the turn that published the last completion.
            #expect(await manager.activeTransferCount == 0)
            // Every transfer finished although nobody read: the oldest events were dropped, counted.
            #expect(stalled.droppedCount > 0)
            var iterator = stalled.makeAsyncIterator()
            var kept: [TransferActivity] = []
            for _ in 0..<4 { if let event = await iterator.next() { kept.append(event) } }
            #expect(kept.count == 4)
            #expect(kept.last?.name == "completed", "the newest events are kept")
            #expect(stalled.droppedCount + 4 >= 20 * 3, "at least started, response and completed per transfer")
        }
    }

    @Test func withNobodyListeningNoEventIsBuilt() async throws {
        try await withServerAndManager { server, manager in
            #expect(!manager.activity.isObserved)
            do {
                let stream = await manager.transferActivity()
                #expect(manager.activity.isObserved)
                _ = stream
            }
            #expect(await eventually { !manager.activity.isObserved }, "a dropped stream unregisters")
            _ = try await manager.data(from: server.url("/bytes/10"))
        }
    }
}

extension TransferProgress: CustomTestStringConvertible {
    public var testDescription: String { "\(completedBytes)/\(expectedBytes.map(String.init) ?? "?")" }
}
