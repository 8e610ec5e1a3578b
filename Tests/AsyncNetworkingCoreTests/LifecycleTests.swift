import Synchronization
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

@Suite("Lifecycle, session events, suspend/resume")
struct LifecycleTests {
    @Test func invalidateAndCancelEndsEveryOpenStreamWithSessionInvalidated() async throws {
        try await withServerAndManager { server, manager in
            var handles: [TransferHandle] = []
            for _ in 0..<10 {
                handles.append(try await manager.dataTask(with: URLRequest(url: server.url("/delay/\(neverEnding)"))))
            }
            #expect(await eventually { server.stats.inFlight >= 6 })
            await manager.invalidateAndCancel()
            #expect(await manager.activeTransferCount == 0)
            for handle in handles {
                let error = await expectNetworkingError { try await collectEvents(handle) }
                #expect(error?.kind == .sessionInvalidated)
            }
            let late = await expectNetworkingError { try await manager.data(from: server.url("/bytes/1")) }
            #expect(late?.kind == .sessionInvalidated)
        }
    }

    @Test func invalidateLetsRunningTransfersFinish() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/delay/200")))
            await manager.invalidate()
            let events = try await collectEvents(handle)
            #expect(events.last?.name == "completed")
            #expect(await !manager.isActive)
        }
    }

    @Test func withSessionManagerAlwaysShutsDown() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        struct Boom: Error {}
        var escaped: SessionManager?
        do {
            try await withSessionManager { manager in
                escaped = manager
                _ = try await manager.data(from: server.url("/bytes/10"))
                throw Boom()
            }
        } catch is Boom {}
        let manager = try #require(escaped)
        #expect(await !manager.isActive)
        let error = await expectNetworkingError { try await manager.data(from: server.url("/bytes/1")) }
        #expect(error?.kind == .sessionInvalidated)
    }

    @Test func sessionEventsReportResumeSuspendCompleteAndInvalidation() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager()
        let events = await manager.sessionEvents()
        let collector = Task {
            var names: [String] = []
            for await event in events {
                switch event {
                case .transferResumed: names.append("resumed")
                case .transferSuspended: names.append("suspended")
                case .transferCompleted(_, let error): names.append(error == nil ? "completed" : "failed")
                case .invalidated: names.append("invalidated")
                }
            }
            return names
        }
        _ = try await manager.data(from: server.url("/bytes/10"))
        let held = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10")), options: TransferOptions(startsImmediately: false))
        try await held.suspend()
        try await held.resume()
        _ = try await collectEvents(held)
        _ = await expectNetworkingError { try await manager.data(from: server.url("/fault/close")) }
        await manager.invalidateAndCancel()
        let names = try await withDeadline { await collector.value }
        #expect(names == ["resumed", "completed", "resumed", "completed", "resumed", "failed", "invalidated"])
    }

    @Test func suspendingAWaitingTransferHoldsItUntilResume() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 1) { server, manager in
            let events = await manager.sessionEvents()
            // The first transfer holds the only slot until it is cancelled.
            let first = try await manager.dataTask(with: URLRequest(url: server.url("/delay/\(neverEnding)")))
            let second = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10")))
            #expect(await manager.waitingTransferCount == 1)
            try await second.suspend()
            #expect(await manager.waitingTransferCount == 0)
            first.cancel()
            _ = await expectNetworkingError { try await collectEvents(first) }
            #expect(await eventually { await manager.runningTransferCount == 0 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.requests.filter { $0.path == "/bytes/10" }.isEmpty, "the suspended transfer did not take the free slot")
            try await second.resume()
            #expect(try await collectEvents(second).last?.name == "completed")
            var seen: [String] = []
            for await event in events {
                if case .transferSuspended(let id) = event { seen.append("suspended \(id == second.id)") }
                if case .transferResumed(let id, _) = event, id == second.id { seen.append("resumed"); break }
            }
            #expect(seen == ["suspended true", "resumed"])
        }
    }

    @Test func resumeRightAfterSuspendIsNotLost() async throws {
        try await withServerAndManager { server, manager in
            try await TransfersSupport.withDirectory { directory in
                let destination = directory.appendingPathComponent("drip.bin")
                // No validator, so resuming restarts from byte 0 — the result must still be exact.
                let url = server.url("/drip?bytes=4000&chunks=200&delay=5")
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: url), to: .file(destination),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                // Suspended and resumed with no wait between the two, while the transfer certainly
                // runs (on the executor, at a byte mark: a consumer reading events can lag behind
                // the whole loopback body): the resume arrives while the pause is still landing.
                let errors = SanitizedMutex<[NetworkingError]>([])
                await manager.whenDownload(handle.id, reaches: [1000]) { manager, id in
                    do throws(NetworkingError) {
                        try manager.suspendTransfer(id)
                        try manager.resumeTransfer(id)
                    } catch {
                        errors.withLock { $0.append(error) }
                    }
                }
                try await handle.resume()
                var iterator = handle.events.makeAsyncIterator()
                var downloaded: URL?
                while let event = try await iterator.next() {
                    if case .downloaded(let file) = event { downloaded = file }
                }
                #expect(errors.withLock { $0 }.isEmpty)
                #expect(downloaded == destination)
                #expect(try Data(contentsOf: destination) == BytePattern.data(offset: 0, count: 4000))
                #expect(await manager.activeTransferCount == 0)
            }
        }
    }
}
