import Foundation

/// What a `304 Not Modified` does to a stored response (RFC 9111 §3.2, §4.3.3, §4.3.4). Pure.
enum CacheRevalidation {
    /// Fields a `304` never replaces: the stored body's framing and hop-by-hop fields.
    static let keptFields: Set<String> = [
        "content-length", "content-range", "transfer-encoding", "content-encoding",
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "upgrade",
    ]

    /// Whether a `304` with `notModified` header fields validates `stored` (§4.3.4): its strong or
    /// weak `ETag` equals the stored one; else, without an `ETag`, its `Last-Modified` equals the
    /// stored one; else, with neither, it applies to the one response stored.
    static func validates(_ notModified: HeaderFields, stored: HeaderFields) -> Bool {
        if let etag = notModified["ETag"] {
            guard let storedETag = stored["ETag"] else { return false }
            return opaque(etag) == opaque(storedETag)
        }
        if let modified = notModified["Last-Modified"] {
            return stored["Last-Modified"] == modified
        }
        return true
    }

    /// The stored head updated by a `304` received at `responseTime` for a request sent at
    /// `requestTime` (§3.2): every field of the `304` replaces the stored one, except
    /// ``keptFields``, those the `304`'s `Connection` names, and what the cache never stores
    /// (``CacheStoredFields``: a `Set-Cookie` of the `304` is not merged in). A `304` without `Date` or `Age`
    /// removes the stored ones, so the response's age restarts from this validation.
    static func updated(
        _ stored: StoredResponse.Head, with notModified: HeaderFields, requestTime: Date, responseTime: Date
    ) -> StoredResponse.Head {
        var head = stored
        let connectionNamed = Set(notModified.tokens("Connection"))
        for (name, value) in notModified.dictionary {
            let lower = name.lowercased()
            if keptFields.contains(lower) || !CacheStoredFields.isStored(lower, connectionNamed: connectionNamed) { continue }
            head.headers[name] = value
        }
        if notModified["Date"] == nil { head.headers["Date"] = nil }
        if notModified["Age"] == nil { head.headers["Age"] = nil }
        head.headers = CacheStoredFields.storable(head.headers)
        head.requestTime = requestTime
        head.responseTime = responseTime
        return head
    }

    /// An entity tag without its weakness prefix, for the weak comparison (RFC 9110 §8.8.3.2).
    static func opaque(_ tag: String) -> String {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
    }
}
