import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

/// Turns on an HTTP cache with one line and shows a network fetch, a fresh hit served without a
/// request, and a stale response revalidated with `If-None-Match` and answered by a `304`.
func showCache(_ manager: SessionManager, _ server: LoopbackServer) async throws {
    var client = HTTPClient(manager: manager, baseURL: server.baseURL)
    client.cache = HTTPCache(memoryCapacity: 4 << 20)
    let steps: [(String, Parameters)] = [
        ("cache/fresh", ["cc": "max-age=60"]), ("cache/fresh", ["cc": "max-age=60"]),
        ("cache/etag", ["cc": "no-cache", "etag": "v1"]), ("cache/etag", ["cc": "no-cache", "etag": "v1"]),
    ]
    for (path, parameters) in steps {
        let response = try await client.request(.get, path, parameters: parameters)
        let outcome = response.cacheOutcome.map { "\($0)" } ?? "-"
        let sent = server.requests.filter { $0.path == "/" + path }.last?.header("If-None-Match").map { ", sent If-None-Match \($0)" } ?? ""
        print("  GET \(path) → \(response.statusCode) \(outcome) (server has seen \(server.requests.filter { $0.path == "/" + path }.count)\(outcome == "revalidated" ? sent : ""))")
    }
}
