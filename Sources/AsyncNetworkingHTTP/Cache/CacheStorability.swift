import Foundation

/// Whether a response may be stored (RFC 9111 §3, for a private cache). Pure.
enum CacheStorability {
    /// `nil` when the response (received at `responseTime`) to `method` with `requestHeaders` may be stored, else why not.
    ///
    /// Stored: a final response to `GET` (not `206` or `304`), without `no-store` in the request
    /// or the response, not `Vary: *`, that has explicit freshness (`max-age`, `Expires`),
    /// `public`/`private`, or a status cacheable by default — and that can ever be used, so it
    /// has a freshness lifetime or a validator (`ETag`, `Last-Modified`) to revalidate with.
    /// `private` is fine here (a private cache). A request with `Authorization` needs `public`,
    /// `s-maxage` or `must-revalidate` in the response (§3.5).
    static func refusal(
        method: String, requestHeaders: HeaderFields, statusCode: Int, responseHeaders: HeaderFields,
        responseTime: Date
    ) -> String? {
        guard method.uppercased() == "GET" else { return "only GET responses are stored" }
        guard (200...599).contains(statusCode), statusCode != 206, statusCode != 304 else {
            return "status \(statusCode) is not stored"
        }
        let request = CacheControl(request: requestHeaders)
        let response = CacheControl(responseHeaders["Cache-Control"])
        if request.noStore { return "the request says no-store" }
        if response.noStore { return "the response says no-store" }
        if VaryMatching.fields(of: responseHeaders) == nil { return "Vary: * matches no request" }
        if requestHeaders["Authorization"] != nil,
           !(response.isPublic || response.sharedMaxAge != nil || response.mustRevalidate) {
            return "a response to a request with Authorization needs public, s-maxage or must-revalidate"
        }
        let explicit = CacheFreshness.hasExplicitLifetime(responseHeaders)
        guard explicit || response.isPublic || response.isPrivate || CacheFreshness.heuristicallyCacheable.contains(statusCode) else {
            return "status \(statusCode) is not cacheable by default and the response gives no lifetime"
        }
        let lifetime = CacheFreshness.lifetime(headers: responseHeaders, statusCode: statusCode, responseTime: responseTime)
        let hasValidator = responseHeaders["ETag"] != nil || responseHeaders["Last-Modified"] != nil
        guard lifetime > 0 || hasValidator else {
            return "the response has no freshness lifetime and no validator: it could never be used"
        }
        return nil
    }
}
