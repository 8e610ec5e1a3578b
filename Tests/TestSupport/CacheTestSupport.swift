import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
import AsyncNetworking
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP

/// Both transports, for cache tests that must hold on each.
let cacheTransports: [SessionManager.Transport] = [.curl, .urlSession]

/// A clock the test moves forward instead of sleeping.
final class CacheTestClock: Sendable {
    private let current = SanitizedMutex(Date())
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// A cache reading `clock` (memory 1 MiB unless given; disk only with a directory).
func makeTestCache(
    clock: CacheTestClock = CacheTestClock(), memory: Int = 1 << 20, disk: Int = 0, directory: URL? = nil
) -> HTTPCache {
    HTTPCache(memoryCapacity: memory, diskCapacity: disk, directory: directory, clock: { clock.now })
}

/// Starts a loopback server and a client on `transport` whose ``HTTPClient/cache`` is `cache`,
/// runs `body` within a deadline, and shuts both down.
func withCachedClient<T: Sendable>(
    _ transport: SessionManager.Transport, cache: HTTPCache?,
    configure: @Sendable (URLSessionConfiguration) -> Void = { _ in },
    _ body: @escaping @Sendable (LoopbackServer, HTTPClient) async throws -> T
) async throws -> T {
    try await withServerAndManager(transport: transport, configure: configure) { server, manager in
        var client = HTTPClient(manager: manager, baseURL: server.baseURL)
        client.cache = cache
        return try await body(server, client)
    }
}

/// The requests the server received for `/cache/NAME`.
func cacheHits(_ server: LoopbackServer, _ name: String) -> [RecordedRequest] {
    server.requests.filter { $0.path == "/cache/\(name)" }
}

extension HTTPClient {
    /// `GET /cache/NAME` with `query` and `headers`, as `Data`, with the client's cache policy or `policy`.
    func cacheGet(
        _ name: String, _ query: [String: String], headers: HTTPHeaders = [:],
        policy: URLRequest.CachePolicy? = nil
    ) async throws -> HTTPResponse<Data> {
        var request = try makeRequest(.get, "cache/\(name)", parameters: .values(query.mapValues { .string($0) }), headers: headers)
        if let policy { request.cachePolicy = policy }
        return try await send(request, serializer: DataResponseSerializer())
    }
}
