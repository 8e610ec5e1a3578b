import BenchmarkSupport
import AsyncHTTPClient
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AsyncHTTPClient's client (AsyncNetworking has an `HTTPClient` of its own).
typealias AHCClient = AsyncHTTPClient.HTTPClient

/// The URLs every scenario loads, prebuilt for both clients.
struct Endpoints: Sendable {
    let small: URLRequest
    let smallAHC: HTTPClientRequest
    let big: URLRequest
    let bigAHC: HTTPClientRequest

    init(server: String, bigBytes: Int) {
        let smallURL = server + "/bytes/\(BenchServer.smallBytes)"
        let bigURL = server + "/bytes/\(bigBytes)"
        small = URLRequest(url: URL(string: smallURL)!)
        smallAHC = HTTPClientRequest(url: smallURL)
        big = URLRequest(url: URL(string: bigURL)!)
        bigAHC = HTTPClientRequest(url: bigURL)
    }
}

/// One contender's client, created once per child process and used for every request it makes
/// (connections are kept alive, as a service would).
enum PeerClient: Sendable {
    /// `SessionManager()` or `SessionManager(transport: .urlSession)`.
    case ours(SessionManager)
    /// `SessionManager()` called through `fetch` (native response heads).
    case native(SessionManager)
    /// `HTTPClient(eventLoopGroupProvider: .singleton)`, default configuration.
    case ahc(AHCClient)

    static func make(_ contender: Contender) -> PeerClient {
        switch contender {
        case .ours: return .ours(SessionManager())
        case .oursURLSession: return .ours(SessionManager(transport: .urlSession))
        case .oursNative: return .native(SessionManager())
        case .ahc: return .ahc(AHCClient(eventLoopGroupProvider: .singleton))
        }
    }

    /// Loads the small body and checks it is a 200 with ``BenchServer/smallBytes`` bytes.
    func get(_ endpoints: Endpoints) async throws {
        let status: Int
        let bytes: Int
        switch self {
        case .ours(let manager):
            let (body, response) = try await manager.data(for: endpoints.small)
            (status, bytes) = (response.statusCode, body.count)
        case .native(let manager):
            let (body, head) = try await manager.fetch(endpoints.small)
            (status, bytes) = (head.statusCode, body.count)
        case .ahc(let client):
            let response = try await client.execute(endpoints.smallAHC, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            (status, bytes) = (Int(response.status.code), body.readableBytes)
        }
        try Self.check(status: status, bytes: bytes, expected: BenchServer.smallBytes)
    }

    /// `count` small GETs as one batch, at most `width` at once, results in input order: ours is the
    /// Batch API (`data(for:width:)`); AsyncHTTPClient has none, so it is the hand-written
    /// equivalent (a sliding-window TaskGroup storing each result at its index).
    func batch(_ endpoints: Endpoints, count: Int, width: Int) async throws {
        let results: [(status: Int, bytes: Int)]
        switch self {
        case .ours(let manager):
            let requests = Array(repeating: endpoints.small, count: count)
            results = try await manager.data(for: requests, width: width).map { ($0.1.statusCode, $0.0.count) }
        case .native(let manager):
            let requests = Array(repeating: endpoints.small, count: count)
            results = try await manager.fetch(requests, width: width).map { ($0.1.statusCode, $0.0.count) }
        case .ahc(let client):
            results = try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
                var results = Array(repeating: (status: 0, bytes: 0), count: count)
                var next = 0
                func add() {
                    let index = next
                    next += 1
                    group.addTask {
                        let response = try await client.execute(endpoints.smallAHC, timeout: .seconds(60))
                        let body = try await response.body.collect(upTo: 1 << 20)
                        return (index, Int(response.status.code), body.readableBytes)
                    }
                }
                while next < min(width, count) { add() }
                while let (index, status, bytes) = try await group.next() {
                    results[index] = (status, bytes)
                    if next < count { add() }
                }
                return results
            }
        }
        guard results.count == count else { throw BenchmarkError("batch: \(results.count) of \(count) results") }
        for result in results {
            try Self.check(status: result.status, bytes: result.bytes, expected: BenchServer.smallBytes)
        }
    }

    /// Loads the big body, reading every chunk as it arrives and calling `progress` with the bytes
    /// read so far; returns the byte count. Ours reads the transfer's event stream
    /// (`dataTask(with:)`, `handle.events`) when `events` is true, else `stream(for:)`;
    /// AsyncHTTPClient iterates `execute(_:timeout:)`'s streaming `response.body`.
    func stream(_ endpoints: Endpoints, events: Bool, progress: (Int) -> Void = { _ in }) async throws -> Int {
        var count = 0
        var status = 0
        switch self {
        case .ours(let manager) where events, .native(let manager) where events:
            let handle = try await manager.dataTask(with: endpoints.big)
            for try await event in handle.events {
                switch event {
                case .response(let response): status = response.statusCode
                case .data(let chunk):
                    count += chunk.count
                    progress(count)
                default: break
                }
            }
        case .ours(let manager), .native(let manager):
            let (body, response) = try await manager.stream(for: endpoints.big)
            status = response.statusCode
            for try await chunk in body {
                count += chunk.count
                progress(count)
            }
        case .ahc(let client):
            let response = try await client.execute(endpoints.bigAHC, timeout: .seconds(600))
            status = Int(response.status.code)
            for try await buffer in response.body {
                count += buffer.readableBytes
                progress(count)
            }
        }
        guard status == 200 else { throw BenchmarkError("stream: status \(status)") }
        return count
    }

    func shutdown() async {
        switch self {
        case .ours(let manager), .native(let manager): await manager.invalidateAndCancel()
        case .ahc(let client): try? await client.shutdown()
        }
    }

    private static func check(status: Int, bytes: Int, expected: Int) throws {
        guard status == 200, bytes == expected else {
            throw BenchmarkError("status \(status), \(bytes) bytes (expected 200, \(expected) bytes)")
        }
    }
}
