import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPClient {
    /// ``exchange(_:)`` through ``cache`` when one is set: every verb and `send` go through here.
    func cachedExchange(_ request: URLRequest) async throws(NetworkingError) -> (Data, HTTPURLResponse, TransferMetrics) {
        guard let cache else { return try await exchange(request) }
        return try await cache.exchange(request) { (request) async throws(NetworkingError) in
            try await exchange(request)
        }
    }
}
