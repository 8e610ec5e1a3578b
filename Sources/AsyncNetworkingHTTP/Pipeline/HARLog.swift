import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HAR 1.2 document ``HARRecorder`` writes (http://www.softwareishard.com/blog/har-12-spec/):
/// plain `Encodable` values, one per object of the format. Fields the library cannot know are
/// `-1` (sizes of header blocks, timings not measured), as the format asks.
struct HARDocument: Encodable {
    struct Log: Encodable {
        var version = "1.2"
        var creator: NameVersion
        var entries: [HAREntry]
    }

    struct NameVersion: Encodable {
        var name: String
        var version: String
    }

    var log: Log
}

/// One request and its response (a redirect is an entry of its own, with ``HARResponse/redirectURL``).
struct HAREntry: Encodable {
    var startedDateTime: String
    /// Milliseconds, the sum of the non-negative ``timings``.
    var time: Double
    var request: HARRequest
    var response: HARResponse
    var cache = HAREmpty()
    var timings: HARTimings
    var serverIPAddress: String?
    /// ``ConnectionMetrics/connectionIdentifier``.
    var connection: String?
    /// Why the transfer failed (a custom field: HAR allows names starting with `_`).
    var _error: String?
}

struct HAREmpty: Encodable {}

struct HARNameValue: Encodable, Equatable {
    var name: String
    var value: String
}

struct HARRequest: Encodable {
    var method: String
    var url: String
    var httpVersion: String
    var cookies: [HARNameValue] = []
    var headers: [HARNameValue]
    var queryString: [HARNameValue]
    var headersSize = -1
    var bodySize: Int64
}

struct HARResponse: Encodable {
    struct Content: Encodable {
        var size: Int64
        var mimeType: String
    }

    var status: Int
    var statusText: String
    var httpVersion: String
    var cookies: [HARNameValue] = []
    var headers: [HARNameValue]
    var content: Content
    var redirectURL: String
    var headersSize = -1
    var bodySize: Int64
}

/// HAR timings in milliseconds; `-1` where not applicable or not measured.
struct HARTimings: Encodable {
    var blocked: Double = -1
    var dns: Double = -1
    var connect: Double = -1
    var send: Double = 0
    var wait: Double = 0
    var receive: Double = 0
    var ssl: Double = -1

    /// From the transfer's metrics: libcurl's phases when the transport measured them (a reused
    /// connection has no `dns`, `connect` or `ssl`); else the library's own time to the response
    /// head (`wait`) and to the end (`receive`).
    init(_ metrics: TransferMetrics?) {
        guard let metrics else { return }
        let total = Self.ms(metrics.duration)
        guard let connection = metrics.connection else {
            wait = metrics.timeToResponse.map(Self.ms) ?? total
            receive = max(0, total - wait)
            return
        }
        let lookup = Self.ms(connection.nameLookup)
        let tcp = Self.ms(connection.connect)
        let tls = Self.ms(connection.secureConnection)
        let connected = max(tcp, tls)
        if !connection.reusedConnection {
            dns = lookup
            connect = max(0, connected - lookup) // HAR: connect includes ssl
            ssl = tls > 0 ? max(0, tls - tcp) : -1
        }
        send = max(0, Self.ms(connection.requestStart) - connected)
        wait = max(0, Self.ms(connection.firstByte) - Self.ms(connection.requestStart))
        receive = max(0, Self.ms(connection.total) - Self.ms(connection.firstByte))
        blocked = max(0, total - Self.ms(connection.total)) // the library's time around the attempt
    }

    /// The sum of the non-negative phases (HAR's `time`; `ssl` is inside `connect`).
    var sum: Double { [blocked, dns, connect, send, wait, receive].filter { $0 > 0 }.reduce(0, +) }

    static func ms(_ duration: Duration) -> Double {
        let parts = duration.components
        return (Double(parts.seconds) * 1000 + Double(parts.attoseconds) / 1e15).rounded(toPlaces: 3)
    }
}

extension Double {
    fileprivate func rounded(toPlaces places: Int) -> Double {
        let scale = pow(10, Double(places))
        return (self * scale).rounded() / scale
    }
}

/// Turns requests and responses into HAR values, secrets redacted as ``LoggingMonitor`` does.
struct HAREntryBuilder {
    var showsSecrets: Bool

    func entry(
        request: URLRequest, started: Date, response: HTTPURLResponse?, metrics: TransferMetrics?,
        redirectURL: URL? = nil, error: NetworkingError? = nil
    ) -> HAREntry {
        let version = metrics?.connection?.httpVersion ?? "HTTP/1.1"
        let timings = HARTimings(metrics)
        let requestHeaders = (request.allHTTPHeaderFields ?? [:]).sorted { $0.key.lowercased() < $1.key.lowercased() }
        let harRequest = HARRequest(
            method: request.httpMethod ?? "GET", url: url(request.url), httpVersion: version,
            headers: requestHeaders.map { header($0.key, $0.value) }, queryString: query(request.url),
            bodySize: Self.requestBodySize(request, metrics: metrics)
        )
        var responseHeaders: [HARNameValue] = []
        if let response {
            responseHeaders = response.allHeaderFields.compactMap { key, value in
                (key as? String).map { header($0, "\(value)") }
            }.sorted { $0.name.lowercased() < $1.name.lowercased() }
        }
        let received = redirectURL == nil ? (metrics?.bytesReceived ?? 0) : 0
        let harResponse = HARResponse(
            status: response?.statusCode ?? 0,
            statusText: response.map { HTTPURLResponse.localizedString(forStatusCode: $0.statusCode) } ?? "",
            httpVersion: response == nil ? "" : version, headers: responseHeaders,
            content: .init(size: received, mimeType: response?.mimeType ?? response?.value(forHTTPHeaderField: "Content-Type") ?? ""),
            redirectURL: redirectURL.map { url($0) } ?? "",
            bodySize: redirectURL == nil ? Self.responseBodySize(response, received: received, metrics: metrics) : -1
        )
        let connection = redirectURL == nil ? metrics?.connection : nil
        return HAREntry(
            startedDateTime: Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(started),
            time: redirectURL == nil ? (metrics.map { HARTimings.ms($0.duration) } ?? timings.sum) : timings.sum,
            request: harRequest, response: harResponse, timings: timings,
            serverIPAddress: connection?.remoteAddress, connection: connection?.connectionIdentifier,
            _error: error.map { String(describing: $0) }
        )
    }

    /// HAR 1.2's `request.bodySize`: the body bytes sent (the transfer's count), else the length
    /// of an `httpBody`, `0` without a body, `-1` when unknown (a body stream never sent).
    static func requestBodySize(_ request: URLRequest, metrics: TransferMetrics?) -> Int64 {
        if let sent = metrics?.bytesSent { return sent }
        if let body = request.httpBody { return Int64(body.count) }
        return request.httpBodyStream == nil ? 0 : -1
    }

    /// HAR 1.2's `response.bodySize`: the body as it came off the wire — what curl counted before
    /// decoding a content coding; the decoded length when the response has no content coding (the
    /// same bytes); `0` for a response served from a cache; `-1` when unknown (no response, or a
    /// coded body decoded below the library, as URLSession does).
    static func responseBodySize(_ response: HTTPURLResponse?, received: Int64, metrics: TransferMetrics?) -> Int64 {
        guard let response else { return -1 }
        if let outcome = metrics?.cacheOutcome, outcome != .network { return 0 } // HAR: 0 for a cached response
        if let wire = metrics?.connection?.bodyBytesReceived { return wire }
        let codings = (response.value(forHTTPHeaderField: "Content-Encoding") ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        return codings.isEmpty ? received : -1
    }

    /// Credential fields become `<redacted>`; URL-valued fields (`Location`, `Content-Location`)
    /// lose user info and query values as URLs do.
    private func header(_ name: String, _ value: String) -> HARNameValue {
        guard !showsSecrets else { return HARNameValue(name: name, value: value) }
        if CURLDescription.isSecret(name) { return HARNameValue(name: name, value: "<redacted>") }
        if Self.urlValuedFields.contains(name.lowercased()) { return HARNameValue(name: name, value: Redaction.urlString(value)) }
        return HARNameValue(name: name, value: value)
    }

    static let urlValuedFields: Set<String> = ["location", "content-location", "referer", "origin"]

    private func url(_ url: URL?) -> String {
        showsSecrets ? (url?.absoluteString ?? "") : CURLDescription.redactedURL(url)
    }

    private func query(_ url: URL?) -> [HARNameValue] {
        guard let url, let items = URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems else { return [] }
        return items.map { item in
            if showsSecrets { return HARNameValue(name: item.name, value: item.value ?? "") }
            let (name, value) = Redaction.queryComponent(name: item.name, value: item.value)
            return HARNameValue(name: name, value: value)
        }
    }
}
