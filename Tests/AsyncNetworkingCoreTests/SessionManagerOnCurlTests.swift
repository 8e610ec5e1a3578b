#if os(Linux)
import FoundationNetworking
import Synchronization
@testable import AsyncNetworkingTestSupport

/// What only the curl transport does, through the public API of `SessionManager`.
@Suite("Curl transport through SessionManager")
struct CurlTransportTests {
    private static func withCurlManager<T: Sendable>(
        _ body: @escaping @Sendable (LoopbackServer, SessionManager) async throws -> T
    ) async throws -> T {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager(transport: .curl)
        #expect(manager.transport == .curl)
        do {
            let result = try await withDeadline(300) { try await body(server, manager) }
            await manager.invalidateAndCancel()
            return result
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
    }

    /// `suspend()` on a running data transfer pauses it in place: the body stops arriving (the
    /// server is held back by TCP), and `resume()` continues on the same connection.
    @Test func suspendingADataTransferIsRealBackPressure() async throws {
        try await Self.withCurlManager { server, manager in
            // 16 GiB: far more than can pass before any suspend lands, however loaded the machine.
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(Int64(1) << 34)?seed=5")))
            let received = Counter()
            let reader = Task {
                do {
                    for try await event in handle.events {
                        if case .data(let chunk) = event { received.add(chunk.count) }
                    }
                    return "ended"
                } catch {
                    return (error as? NetworkingError)?.kind == .cancelled ? "cancelled" : "\(error)"
                }
            }
            #expect(await eventually(60) { received.load() > 1 << 20 })
            try await handle.suspend()
            // What was in flight drains; then nothing more arrives while paused.
            #expect(await eventually(60) {
                let before = received.load()
                try? await Task.sleep(for: .milliseconds(200))
                return received.load() == before
            })
            let pausedAt = received.load()
            try await Task.sleep(for: .milliseconds(500))
            // Running, 500 ms carry hundreds of MiB; paused, at most a straggling delivery.
            #expect(received.load() - pausedAt < 8 << 20, "the body kept arriving while paused")
            #expect(await manager.runningTransferCount == 1)
            try await handle.resume()
            #expect(await eventually(60) { received.load() > pausedAt + (64 << 20) }, "the body flows again")
            handle.cancel()
            #expect(await reader.value == "cancelled")
            #expect(server.stats.connectionCount == 1, "resumed on the same connection")
        }
    }

    /// 10,000 GETs, 16 at a time, over kept-alive connections: the server sees at most the per-host
    /// limit of connections, and the metrics say the connections were reused.
    @Test func tenThousandKeepAliveGetsReuseConnections() async throws {
        try await Self.withCurlManager { server, manager in
            server.resetStats()
            let reused = Counter()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for lane in 0..<16 {
                    group.addTask {
                        for index in stride(from: lane, to: 10_000, by: 16) {
                            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(index % 50 + 1)")))
                            var count = 0
                            for try await event in handle.events {
                                switch event {
                                case .data(let chunk): count += chunk.count
                                case .completed(let metrics):
                                    if metrics.connection?.reusedConnection == true { reused.add(1) }
                                default: break
                                }
                            }
                            #expect(count == index % 50 + 1)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(server.stats.requestCount == 10_000)
            #expect(server.stats.connectionCount <= 6)
            #expect(reused.load() >= 10_000 - 6)
        }
    }

    /// The completion's metrics carry what libcurl measured.
    @Test func metricsComeFromLibcurl() async throws {
        try await Self.withCurlManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/1000")))
            var metrics: TransferMetrics?
            for try await event in handle.events { if case .completed(let value) = event { metrics = value } }
            let connection = try #require(metrics?.connection)
            #expect(connection.httpVersion == "HTTP/1.1")
            #expect(connection.remoteAddress == "127.0.0.1")
            #expect(connection.remotePort == Int(server.port))
            #expect(connection.total >= connection.firstByte)
            #expect(metrics?.bytesReceived == 1000)
        }
    }

    /// Each manager's transfers run on its own loop: a suspended transfer on one manager holds up
    /// nothing on the same manager either.
    @Test func aSuspendedTransferDoesNotHoldUpOthers() async throws {
        try await Self.withCurlManager { server, manager in
            let big = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(64 << 20)")))
            var iterator = big.events.makeAsyncIterator()
            _ = try await iterator.next()
            try await big.suspend()
            for index in 0..<50 {
                let (body, response) = try await manager.data(from: server.url("/bytes/\(index + 1)"))
                #expect(response.statusCode == 200)
                #expect(body.count == index + 1)
            }
            big.cancel()
        }
    }
}

/// A counter shared between tasks.
private final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func add(_ count: Int) { value.add(count, ordering: .relaxed) }
    func load() -> Int { value.load(ordering: .relaxed) }
}

#endif
