extension HTTPResponse {
    /// Where the response came from when ``HTTPClient/cache`` is set; `nil` when no cache was
    /// consulted. The same as `metrics.cacheOutcome`.
    public var cacheOutcome: HTTPCacheOutcome? { metrics.cacheOutcome }
}
