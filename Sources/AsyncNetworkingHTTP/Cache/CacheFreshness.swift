import Foundation

/// How long a stored response stays fresh and how old it is (RFC 9111 §4.2). Pure: every time is
/// an argument.
enum CacheFreshness {
    /// Heuristic freshness (§4.2.2) is this fraction of the time since `Last-Modified`…
    static let heuristicFraction = 0.1
    /// …capped at one day: beyond 24 hours RFC 7234 required a warning, and RFC 9111 suggests no
    /// larger figure, so the heuristic never claims more.
    static let heuristicCap: TimeInterval = 86_400

    /// The status codes that are heuristically cacheable by default (RFC 9110 §15.1).
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The freshness lifetime of a response in this private cache (§4.2.1): `max-age`, else
    /// `Expires` − `Date` (an invalid `Expires` is already expired), else the heuristic when allowed
    /// (status cacheable by default, or `public`): 10% of `Date` − `Last-Modified`, at most a day.
    /// A missing or invalid `Date` reads as the time the response was received.
    static func lifetime(headers: HeaderFields, statusCode: Int, responseTime: Date) -> TimeInterval {
        let control = CacheControl(headers["Cache-Control"])
        if let maxAge = control.maxAge { return TimeInterval(maxAge) }
        let date = headers["Date"].flatMap(HTTPDateParser.parse) ?? responseTime
        if let expires = headers["Expires"] {
            guard let expiry = HTTPDateParser.parse(expires) else { return 0 }
            return max(0, expiry.timeIntervalSince(date))
        }
        guard heuristicallyCacheable.contains(statusCode) || control.isPublic,
              let modified = headers["Last-Modified"].flatMap(HTTPDateParser.parse)
        else { return 0 }
        return min(heuristicCap, max(0, date.timeIntervalSince(modified)) * heuristicFraction)
    }

    /// Whether ``lifetime(headers:statusCode:responseTime:)`` comes from `max-age` or `Expires`.
    static func hasExplicitLifetime(_ headers: HeaderFields) -> Bool {
        CacheControl(headers["Cache-Control"]).maxAge != nil || headers["Expires"] != nil
    }

    /// The current age of a stored response at `now` (§4.2.3):
    /// `max(response_time − Date, Age + response_delay) + (now − response_time)`.
    static func currentAge(headers: HeaderFields, requestTime: Date, responseTime: Date, now: Date) -> TimeInterval {
        let date = headers["Date"].flatMap(HTTPDateParser.parse) ?? responseTime
        let ageValue = TimeInterval(CacheControl.seconds(headers["Age"]?.trimmingCharacters(in: .whitespaces)) ?? 0)
        let apparentAge = max(0, responseTime.timeIntervalSince(date))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedInitialAge = max(apparentAge, ageValue + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(responseTime))
        return correctedInitialAge + residentTime
    }

    /// ``currentAge(headers:requestTime:responseTime:now:)`` of a stored head.
    static func currentAge(_ head: StoredResponse.Head, now: Date) -> TimeInterval {
        currentAge(headers: head.headers, requestTime: head.requestTime, responseTime: head.responseTime, now: now)
    }

    /// ``lifetime(headers:statusCode:responseTime:)`` of a stored head.
    static func lifetime(_ head: StoredResponse.Head) -> TimeInterval {
        lifetime(headers: head.headers, statusCode: head.statusCode, responseTime: head.responseTime)
    }
}
