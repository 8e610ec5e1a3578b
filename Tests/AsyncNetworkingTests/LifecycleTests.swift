import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
@testable import AsyncNetworking

@Suite("Lifecycle, session events, suspend/resume")
struct LifecycleTests {
    @Test func invalidateAndCancelEndsEveryOpenStreamWithSessionInvalidated() async throws {
        try await withServerAndManager { server, manager in
            var handles: [TransferHandle] = []
            for _ in 0..<10 {
                handles.append(try await manager.dataTask(with: URLRequest(url: server.url("/delay/10000"))))
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
        let names = try await withDeadline(10) { await collector.value }
        #expect(names == ["resumed", "completed", "resumed", "completed", "resumed", "failed", "invalidated"])
    }

    @Test func suspendingAWaitingTransferHoldsItUntilResume() async throws {
        try await withServerAndManager(maxConcurrentTransfers: 1) { server, manager in
            let events = await manager.sessionEvents()
            let first = try await manager.dataTask(with: URLRequest(url: server.url("/delay/300")))
            let second = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10")))
            #expect(await manager.waitingTransferCount == 1)
            try await second.suspend()
            #expect(await manager.waitingTransferCount == 0)
            _ = try await collectEvents(first)
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.stats.requestCount == 1, "the suspended transfer did not take the free slot")
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

    @Test func heldTransferStartsOnlyOnResume() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10")), options: TransferOptions(startsImmediately: false))
            try await Task.sleep(for: .milliseconds(100))
            #expect(server.stats.requestCount == 0)
            #expect(await manager.activeTransferCount == 1)
            try await handle.resume()
            let events = try await collectEvents(handle)
            #expect(events.last?.name == "completed")
            #expect(server.stats.requestCount == 1)
        }
    }

    @Test func suspendingARunningDataTransferIsRefusedWithoutCorruptingIt() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/drip?bytes=10&chunks=10&delay=30")))
            var iterator = handle.events.makeAsyncIterator()
            _ = try await iterator.next()
            let error = await expectNetworkingError { try await handle.suspend() }
            #expect(error?.kind == .unsupportedOperation)
            var body = Data()
            while let event = try await iterator.next() { if case .data(let d) = event { body.append(d) } }
            #expect(body == BytePattern.data(offset: 0, count: 10))
            #expect(server.stats.requestCount == 1, "no restart from byte 0")
        }
    }

    @Test func badURLsFailBeforeAnythingIsSent() async throws {
        try await withServerAndManager { server, manager in
            let ftp = await expectNetworkingError { try await manager.data(from: URL(string: "ftp://127.0.0.1/x")!) }
            #expect(ftp?.kind == .unsupportedScheme("ftp"))
            let noHost = await expectNetworkingError { try await manager.data(from: URL(string: "http:///path")!) }
            #expect(noHost?.kind == .invalidURL)
            let relative = await expectNetworkingError { try await manager.data(from: URL(string: "just/a/path")!) }
            #expect(relative?.kind == .invalidURL)
            #expect(server.stats.requestCount == 0)
            let missingFile = await expectNetworkingError {
                try await manager.upload(for: URLRequest(url: server.url("/upload")), fromFile: URL(fileURLWithPath: "/nonexistent/file.bin"))
            }
            #expect(missingFile?.kind == .fileReadFailed)
            #expect(missingFile?.fileURL?.path == "/nonexistent/file.bin")
        }
    }
}
