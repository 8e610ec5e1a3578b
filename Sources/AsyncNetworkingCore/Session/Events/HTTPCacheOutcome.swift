/// Where a response came from when an ``HTTPCache`` handled the request: read it from
/// ``TransferMetrics/cacheOutcome`` or ``HTTPResponse/cacheOutcome``.
public enum HTTPCacheOutcome: Sendable, Hashable {
    /// Served from the cache without contacting the server: the stored response was fresh.
    case fresh
    /// Served from the cache without contacting the server although stale, because the request
    /// allowed it (`.returnCacheDataElseLoad`, `.returnCacheDataDontLoad`, `Cache-Control: max-stale`).
    case stale
    /// The server confirmed the stored response (`304 Not Modified` to an `If-None-Match` /
    /// `If-Modified-Since` request): the stored body was served with the updated header fields.
    case revalidated
    /// The response came from the network (nothing usable was stored, the stored response
    /// changed on the server, the request bypassed the cache, or it is not a `GET`).
    case network

    /// Whether the body came from the cache (``fresh``, ``stale`` or ``revalidated``).
    public var isFromCache: Bool { self != .network }
}
