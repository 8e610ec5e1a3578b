@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Client-side faults: bad input, impatient callers, and shutdown under load.
@Suite("Fault suite: client", .tags(.fault))
struct FaultClientTests {
    @Test func unsupportedSchemesFailBeforeSending() async throws {
        try await withServerAndManager { server, manager in
            for (string, scheme) in [("ftp://127.0.0.1/file", "ftp"), ("file:///etc/passwd", "file"), ("ws://127.0.0.1/", "ws")] {
                let error = await expectNetworkingError { try await manager.data(from: URL(string: string)!) }
                #expect(error?.kind == .unsupportedScheme(scheme))
            }
            #expect(server.stats.requestCount == 0)
        }
    }

    @Test func thousandTransfersCancelledAtRandomMoments() async throws {
        try await withServerAndManager(deadline: 5 * hangDeadline) { server, manager in
            var cancelled = 0
            var finished = 0
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for i in 0..<1000 {
                    let url = server.url(i % 3 == 0 ? "/delay/\(i % 40)" : "/bytes/\(i * 100)")
                    group.addTask {
                        let transfer = Task { try await manager.data(from: url) }
                        try await Task.sleep(for: .microseconds(Int.random(in: 0...20_000)))
                        transfer.cancel()
                        do {
                            _ = try await transfer.value
                            return false
                        } catch let error as NetworkingError {
                            #expect(error.kind == .cancelled)
                            return true
                        }
                    }
                }
                for try await wasCancelled in group { if wasCancelled { cancelled += 1 } else { finished += 1 } }
            }
            #expect(cancelled + finished == 1000)
            #expect(await manager.activeTransferCount == 0)
            #expect(await manager.runningTransferCount == 0)
        }
    }

    @Test func consumerAbandonsItsStreamMidBody() async throws {
        try await withServerAndManager { server, manager in
            for _ in 0..<20 {
                // The body never ends by itself: only abandoning the stream can end the transfer.
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/drip?bytes=400&chunks=40&delay=\(neverEnding)")))
                var iterator = handle.events.makeAsyncIterator()
                while let event = try await iterator.next() {
                    if case .data = event { break }
                }
            }
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test func invalidatingWithHundredTransfersInFlight() async throws {
        try await withServerAndManager { server, manager in
            let handles = try await withThrowingTaskGroup(of: TransferHandle.self) { group in
                for i in 0..<100 {
                    // Neither ever ends by itself: every transfer is still running when invalidated.
                    let url = server.url(i.isMultiple(of: 2) ? "/delay/\(neverEnding)" : "/drip?bytes=100&chunks=100&delay=\(neverEnding)")
                    group.addTask { try await manager.dataTask(with: URLRequest(url: url)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // In flight: as many at the server as URLSession's per-host limit lets through, the rest
            // queued inside URLSession.
            let atServer = min(100, manager.underlyingSession.configuration.httpMaximumConnectionsPerHost)
            #expect(await eventually { server.stats.inFlight >= atServer })
            await manager.invalidateAndCancel()
            #expect(await manager.activeTransferCount == 0)
            for handle in handles {
                let error = await expectNetworkingError { try await collectEvents(handle) }
                #expect(error?.kind == .sessionInvalidated)
            }
        }
    }
}
