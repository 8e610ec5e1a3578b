#if os(Linux)
import Foundation
import FoundationNetworking
import Synchronization
import Testing
import LoopbackServer
@testable import AsyncNetworking

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

    /// `suspend()` on a running data transfer pauses it in place: the body stops arriving and the
    /// server cannot finish sending (TCP back-pressure); `resume()` continues on the same
    /// connection, and the bytes are exact.
    @Test func suspendingADataTransferIsRealBackPressure() async throws {
        try await Self.withCurlManager { server, manager in
            let size = 64 << 20
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(size)?seed=5")))
            let received = Counter()
            let reader = Task {
                var hasher = FNVHasher()
                for try await event in handle.events {
                    if case .data(let chunk) = event {
                        hasher.add(chunk)
                        received.add(chunk.count)
                    }
                }
                return hasher.value
            }
            #expect(await eventually(60) { received.load() > 1 << 20 })
            try await handle.suspend()
            // Wait until nothing more arrives (what was in flight drains), then check it stays so.
            #expect(await eventually(60) {
                let before = received.load()
                try? await Task.sleep(for: .milliseconds(100))
                return received.load() == before
            })
            // Paused, the body cannot complete: the server is stuck in its writes, however long we wait.
            try await Task.sleep(for: .milliseconds(500))
            #expect(received.load() < size / 2)
            #expect(server.stats.completedResponses == 0, "the server could not finish while paused")
            #expect(await manager.runningTransferCount == 1)
            try await handle.resume()
            let checksum = try await reader.value
            #expect(received.load() == size)
            #expect(checksum == Checksum.fnv1a64(SeededBytes.data(seed: 5, offset: 0, count: size)))
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

/// FNV-1a over chunks, matching ``Checksum/fnv1a64(_:)``.
private struct FNVHasher {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    mutating func add(_ data: Data) {
        for byte in data {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
    }
}
#endif
