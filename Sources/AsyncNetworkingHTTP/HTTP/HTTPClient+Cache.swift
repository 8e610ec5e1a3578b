import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPClient {
    /// ``exchange(_:)`` through ``cache`` when one is set: every verb and `send` go through here.
    /// The manager's ``SessionHooks/cache`` hook sees (and may change or refuse) what is stored.
    func cachedExchange(_ request: URLRequest) async throws(NetworkingError) -> (Data, HTTPURLResponse, TransferMetrics) {
        guard let cache else { return try await exchange(request) }
        let willStore = await manager.hooks.cache
        return try await cache.exchange(request, willStore: willStore) { (request) async throws(NetworkingError) in
            try await exchange(request)
        }
    }
}
