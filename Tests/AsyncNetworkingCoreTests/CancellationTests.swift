@testable import AsyncNetworkingTestSupport

@Suite("Structured cancellation")
struct CancellationTests {
    @Test func cancellingTheAwaitingTaskCancelsTheTransferPromptly() async throws {
        try await withServerAndManager { server, manager in
            // The reply never comes: ending at all, with .cancelled, is ending promptly.
            let url = server.url("/delay/\(neverEnding)")
            let task = Task { try await manager.data(from: url) }
            #expect(await eventually { server.stats.inFlight == 1 })
            task.cancel()
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled)
            #expect(await manager.activeTransferCount == 0, "the registry is clean when the call returns")
            #expect(await eventually { server.stats.clientAborts == 1 }, "the server saw the connection go")
        }
    }

    @Test func cancellingTheIteratingTaskCancelsTheTransfer() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/drip?bytes=100&chunks=100&delay=\(neverEnding)")))
            let reader = Task {
                var count = 0
                for try await event in handle.events { if case .data(let d) = event { count += d.count } }
                return count
            }
            try await Task.sleep(for: .milliseconds(200))
            reader.cancel()
            let error = await expectNetworkingError { try await reader.value }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test func handleCancelEndsTheStreamWithCancelled() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/delay/\(neverEnding)")))
            handle.cancel()
            let error = await expectNetworkingError { try await collectEvents(handle) }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test func abandoningTheStreamCancelsTheTransfer() async throws {
        try await withServerAndManager { server, manager in
            do {
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/drip?bytes=2000&chunks=100&delay=\(neverEnding)")))
                var iterator = handle.events.makeAsyncIterator()
                _ = try await iterator.next() // the response
                #expect(await manager.activeTransferCount == 1)
            } // handle and iterator dropped here, mid-body
            #expect(await eventually { await manager.activeTransferCount == 0 })
            #expect(await eventually { server.stats.clientAborts >= 1 })
        }
    }

    @Test func breakingOutOfTheLoopAndDroppingTheHandleCancels() async throws {
        try await withServerAndManager { server, manager in
            func readFirstChunk() async throws -> Int {
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/drip?bytes=2000&chunks=100&delay=\(neverEnding)")))
                for try await event in handle.events {
                    if case .data(let d) = event { return d.count }
                }
                return 0
            }
            let firstChunk = try await readFirstChunk()
            #expect(firstChunk > 0)
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test func alreadyCancelledCallerSendsNothing() async throws {
        try await withServerAndManager { server, manager in
            let url = server.url("/bytes/10")
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await manager.data(from: url)
            }
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled)
            #expect(server.stats.requestCount == 0)
        }
    }

    @Test func cancellingManyTransfersAtRandomMomentsLeavesNothingBehind() async throws {
        try await withServerAndManager { server, manager in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<200 {
                    let path = i % 2 == 0 ? "/bytes/\(1000 * i)" : "/delay/\(i % 50)"
                    let url = server.url(path)
                    let task = Task { try await manager.data(from: url) }
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(Int.random(in: 0...30)))
                        task.cancel()
                        do { _ = try await task.value } catch let error as NetworkingError {
                            #expect(error.kind == .cancelled)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(await manager.activeTransferCount == 0)
            #expect(await manager.runningTransferCount == 0)
        }
    }
}
