import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension HTTPCache {
    /// One network attempt (`@Sendable`, so callers in any isolation can pass one): sends a request and returns the whole body, the final response and
    /// the metrics (``HTTPClient``'s single exchange, or a pipeline of adapters and retries around it).
    public typealias Attempt = @Sendable (URLRequest) async throws(NetworkingError) -> (Data, HTTPURLResponse, TransferMetrics)

    /// Answers `request` from the cache or through `attempt`, storing and revalidating as
    /// RFC 9111 and the request's `cachePolicy` say (see <doc:Caching>). The returned metrics'
    /// ``TransferMetrics/cacheOutcome`` says which happened.
    ///
    /// `attempt` runs at most twice (a `304` whose validator does not match the stored response
    /// is followed by one unconditional request), and never for a fresh hit. The request it gets
    /// has `cachePolicy` `.reloadIgnoringLocalCacheData`, so URLSession's own cache (when a
    /// configuration has one) neither answers nor adds conditions; for a revalidation it carries
    /// `If-None-Match` and/or `If-Modified-Since`.
    ///
    /// Suspends while `attempt` runs and while the cache reads or writes (on the cache's own
    /// queue). Cancellation is `attempt`'s: a cancelled attempt throws and nothing is stored.
    ///
    /// `willStore` (AFNetworking's `setDataTaskWillCacheResponseBlock:`; ``HTTPClient`` passes its
    /// manager's ``SessionHooks/cache``) runs each time a response is about to be stored — a
    /// network response the rules allow to store, or a stored one updated by a `304` — and returns
    /// what to store (the proposal, or a changed response or body) or `nil` to store nothing (what
    /// was stored for the request is then removed too). Its answer is kept under the same key;
    /// `Set-Cookie` and the other fields a cache never stores are removed from it as from any
    /// response. The caller gets the network response either way. Default `nil`: store as proposed.
    ///
    /// - Throws: what `attempt` throws, unchanged; ``NetworkingError/Kind/transport(_:)``
    ///   `.resourceUnavailable` when the request allows only a stored response
    ///   (`.returnCacheDataDontLoad`, `Cache-Control: only-if-cached`) and none fits.
    public nonisolated func exchange(
        _ request: URLRequest, willStore: SessionHooks.Cache? = nil, attempt: Attempt
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse, TransferMetrics) {
        let mode = CacheRequestMode(request)
        var outgoing = request
        outgoing.cachePolicy = .reloadIgnoringLocalCacheData
        guard mode != .bypass, let key = CacheKey.make(request) else {
            let (data, response, metrics) = try await attempt(outgoing)
            await invalidate(after: request, response: response)
            return (data, response, metrics.from(.network))
        }
        let requestHeaders = HeaderFields(request.allHTTPHeaderFields ?? [:])
        let started = clock()
        let stored = mode == .reload ? nil : await lookup(key)
        let decision = CacheDecision.decide(mode: mode, requestHeaders: requestHeaders, stored: stored?.head, now: started)
        switch decision {
        case .fresh, .stale:
            guard let stored else { break }
            let now = clock()
            let metrics = TransferMetrics.cacheHit(started: started, now: now, outcome: decision == .fresh ? .fresh : .stale)
            return (stored.body, stored.httpResponse(age: CacheFreshness.currentAge(stored.head, now: now)), metrics)
        case .unavailable:
            throw NetworkingError(
                .transport(.resourceUnavailable),
                "the request allows only a stored response and the cache has none that fits", request: request
            )
        case .revalidate(let conditions):
            guard let stored else { break }
            var conditional = outgoing
            for (field, value) in conditions { conditional.setValue(value, forHTTPHeaderField: field) }
            let requestTime = clock()
            let (data, response, metrics) = try await attempt(conditional)
            let responseTime = clock()
            guard response.statusCode == 304 else {
                return await keep(
                    request, key: key, (data, response, metrics), requestTime: requestTime, responseTime: responseTime,
                    willStore: willStore
                )
            }
            let notModified = HeaderFields(response)
            guard CacheRevalidation.validates(notModified, stored: stored.head.headers) else { break }
            let entry = StoredResponse(
                head: CacheRevalidation.updated(stored.head, with: notModified, requestTime: requestTime, responseTime: responseTime),
                body: stored.body
            )
            let refusal = CacheStorability.refusal(
                method: "GET", requestHeaders: requestHeaders, statusCode: entry.head.statusCode,
                responseHeaders: entry.head.headers, responseTime: responseTime
            )
            if refusal == nil { await store(entry, willStore: willStore) } else { await remove(key) }
            let age = CacheFreshness.currentAge(entry.head, now: responseTime)
            return (entry.body, entry.httpResponse(age: age), metrics.from(.revalidated))
        case .fetch:
            break
        }
        let requestTime = clock()
        let result = try await attempt(outgoing)
        return await keep(request, key: key, result, requestTime: requestTime, responseTime: clock(), willStore: willStore)
    }

    /// Stores a network response when it may be stored (and it answered `request`'s own URL, not
    /// one reached by a redirect); else removes what was stored for `key`, unless the server
    /// failed (`5xx`). Returns the result marked ``HTTPCacheOutcome/network``.
    private func keep(
        _ request: URLRequest, key: String, _ result: (Data, HTTPURLResponse, TransferMetrics),
        requestTime: Date, responseTime: Date, willStore: SessionHooks.Cache?
    ) async -> (Data, HTTPURLResponse, TransferMetrics) {
        let (data, response, metrics) = result
        let requestHeaders = HeaderFields(request.allHTTPHeaderFields ?? [:])
        let responseHeaders = HeaderFields(response)
        let sameURL = response.url.map { CacheKey.make(method: "GET", url: $0) } == key
        let refusal = CacheStorability.refusal(
            method: request.httpMethod ?? "GET", requestHeaders: requestHeaders, statusCode: response.statusCode,
            responseHeaders: responseHeaders, responseTime: responseTime
        )
        if refusal == nil, sameURL, metrics.redirectCount == 0, let url = response.url, let fields = VaryMatching.fields(of: responseHeaders) {
            let head = StoredResponse.Head(
                key: key, url: url, statusCode: response.statusCode, headers: CacheStoredFields.storable(responseHeaders),
                requestTime: requestTime, responseTime: responseTime,
                vary: VaryMatching.fingerprints(of: requestHeaders, fields: fields)
            )
            await store(StoredResponse(head: head, body: data), willStore: willStore)
        } else if response.statusCode < 500 {
            remove(key)
        }
        return (data, response, metrics.from(.network))
    }

    /// Stores `entry` after `willStore` (when set) has seen it as a `CachedURLResponse`: its answer
    /// replaces the status, header fields (less ``CacheStoredFields``) and body; `nil` removes the
    /// key instead.
    private func store(_ entry: StoredResponse, willStore: SessionHooks.Cache?) async {
        guard let willStore else { return store(entry) }
        let proposed = CachedURLResponse(
            response: entry.httpResponse(age: 0), data: entry.body, userInfo: nil, storagePolicy: .allowed
        )
        guard let answer = await willStore(proposed) else { return remove(entry.head.key) }
        var changed = entry
        if let response = answer.response as? HTTPURLResponse {
            var headers = CacheStoredFields.storable(HeaderFields(response))
            if entry.head.headers["Age"] == nil { headers["Age"] = nil }    // the proposal's computed Age
            changed.head.statusCode = response.statusCode
            changed.head.headers = headers
        }
        changed.body = answer.data
        store(changed)
    }

    /// After an unsafe method's success (`2xx`, `3xx`), removes the stored `GET` responses for its
    /// URL and for the same-origin `Location` and `Content-Location` (RFC 9111 §4.4).
    private func invalidate(after request: URLRequest, response: HTTPURLResponse) {
        let method = (request.httpMethod ?? "GET").uppercased()
        guard !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method), (200..<400).contains(response.statusCode),
              let url = request.url else { return }
        remove(CacheKey.make(method: "GET", url: url))
        for field in ["Location", "Content-Location"] {
            guard let value = response.value(forHTTPHeaderField: field),
                  let target = URL(string: value, relativeTo: url)?.absoluteURL,
                  target.scheme == url.scheme, target.host == url.host, target.port == url.port
            else { continue }
            remove(CacheKey.make(method: "GET", url: target))
        }
    }
}

extension TransferMetrics {
    /// The same metrics with ``cacheOutcome`` set.
    func from(_ outcome: HTTPCacheOutcome) -> TransferMetrics {
        var copy = self
        copy.cacheOutcome = outcome
        return copy
    }

    /// Metrics for a response served from the cache: no bytes moved, the time the lookup took.
    static func cacheHit(started: Date, now: Date, outcome: HTTPCacheOutcome) -> TransferMetrics {
        let elapsed = Duration.nanoseconds(Int64(clamping: max(0, now.timeIntervalSince(started)) * 1e9))
        var metrics = TransferMetrics(
            startDate: started, timeToResponse: elapsed, timeToFirstByte: nil, duration: elapsed,
            bytesSent: 0, bytesReceived: 0, redirectCount: 0
        )
        metrics.cacheOutcome = outcome
        return metrics
    }
}
