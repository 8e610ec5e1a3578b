import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How one request uses the cache, from its `cachePolicy` and its own `Cache-Control`.
enum CacheRequestMode: Sendable, Hashable {
    /// RFC 9111: fresh responses are used, stale ones revalidated (`.useProtocolCachePolicy`).
    case protocolRules
    /// The stored response is not read; the response is stored (`.reloadIgnoringLocalCacheData`,
    /// `.reloadIgnoringLocalAndRemoteCacheData`).
    case reload
    /// A stored response is always revalidated first (`.reloadRevalidatingCacheData`, or a request
    /// `Cache-Control: no-cache` / `Pragma: no-cache`).
    case revalidate
    /// Any stored response is used, however old; else the network (`.returnCacheDataElseLoad`).
    case storedElseLoad
    /// Any stored response is used, however old; else the request fails with
    /// `.transport(.resourceUnavailable)` (`.returnCacheDataDontLoad`).
    case storedOnly
    /// The cache is not involved: not a `GET`, a `Range` request, or a request that carries its
    /// own conditional headers. Unsafe methods still invalidate (RFC 9111 §4.4).
    case bypass

    /// The mode of `request`.
    init(_ request: URLRequest) {
        let method = (request.httpMethod ?? "GET").uppercased()
        let headers = HeaderFields(request.allHTTPHeaderFields ?? [:])
        let conditional = ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"]
        if method != "GET" || conditional.contains(where: { headers[$0] != nil }) {
            self = .bypass
            return
        }
        switch request.cachePolicy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: self = .reload
        case .returnCacheDataElseLoad: self = .storedElseLoad
        case .returnCacheDataDontLoad: self = .storedOnly
        case .reloadRevalidatingCacheData: self = .revalidate
        default: self = CacheControl(request: headers).noCache ? .revalidate : .protocolRules
        }
    }
}

/// What to do with a request, given what is stored. Pure.
enum CacheDecision: Sendable, Hashable {
    /// Serve the stored response; it is fresh.
    case fresh
    /// Serve the stored response although it is stale (the policy or `max-stale` allows it).
    case stale
    /// Ask the server with these conditional header fields; a `304` means serve the stored body.
    case revalidate([String: String])
    /// Go to the network without conditions (nothing usable stored, or nothing to validate with).
    case fetch
    /// Nothing usable is stored and the request may not go to the network (`only-if-cached`,
    /// `.returnCacheDataDontLoad`).
    case unavailable

    /// Decides for a request in `mode` with `requestHeaders`, given the stored head (if any) at `now`.
    static func decide(
        mode: CacheRequestMode, requestHeaders: HeaderFields, stored: StoredResponse.Head?, now: Date
    ) -> CacheDecision {
        let request = CacheControl(request: requestHeaders)
        let onlyIfCached = mode == .storedOnly || request.onlyIfCached
        guard mode != .reload, mode != .bypass else { return .fetch }
        guard let stored, VaryMatching.matches(stored.vary, request: requestHeaders) else {
            return onlyIfCached ? .unavailable : .fetch
        }
        let age = CacheFreshness.currentAge(stored, now: now)
        let lifetime = CacheFreshness.lifetime(stored)
        let fresh = lifetime > age
        switch mode {
        case .storedElseLoad, .storedOnly:
            return fresh ? .fresh : .stale
        case .revalidate:
            return conditions(for: stored).map(CacheDecision.revalidate) ?? .fetch
        case .protocolRules, .reload, .bypass:
            break
        }
        let response = CacheControl(stored.headers["Cache-Control"])
        if response.noCache {
            if onlyIfCached { return .unavailable }
            return conditions(for: stored).map(CacheDecision.revalidate) ?? .fetch
        }
        var acceptable = fresh
        if let maxAge = request.maxAge, age > TimeInterval(maxAge) { acceptable = false }
        if let minFresh = request.minFresh, lifetime - age < TimeInterval(minFresh) { acceptable = false }
        if acceptable { return .fresh }
        if !fresh, let maxStale = request.maxStale, !response.mustRevalidate,
           age - lifetime <= TimeInterval(maxStale), request.maxAge.map({ age <= TimeInterval($0) }) ?? true {
            return .stale
        }
        if onlyIfCached { return .unavailable }
        return conditions(for: stored).map(CacheDecision.revalidate) ?? .fetch
    }

    /// The conditional header fields that validate `stored` (RFC 9111 §4.3.1): `If-None-Match`
    /// with its `ETag`, `If-Modified-Since` with its `Last-Modified`; `nil` when it has neither.
    static func conditions(for stored: StoredResponse.Head) -> [String: String]? {
        var fields: [String: String] = [:]
        if let etag = stored.headers["ETag"] { fields["If-None-Match"] = etag }
        if let modified = stored.headers["Last-Modified"] { fields["If-Modified-Since"] = modified }
        return fields.isEmpty ? nil : fields
    }
}
