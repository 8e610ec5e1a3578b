import Foundation

/// A parsed HTTP/1.x request head: request line and header fields, with the framing the
/// server derives from them. Produced by ``HTTPParser/parseHead(_:)``.
struct RequestHead: Sendable {
    /// The request method exactly as sent, e.g. `GET`.
    var method: String
    /// The request target as sent (origin-form `/path?query`, or absolute-form).
    var target: String
    /// The path of the target, still percent-encoded, always starting with `/`.
    var path: String
    /// The raw query string (without `?`), if the target had one.
    var rawQuery: String?
    /// Query items in order, percent-decoded (`+` is kept literally, as `URLComponents` does).
    var queryItems: [(String, String)]
    /// The HTTP version as (major, minor), e.g. (1, 1).
    var version: (major: Int, minor: Int)
    /// Header fields in order, names as sent, values trimmed of surrounding whitespace.
    var headers: [(String, String)]
    /// How the request body is delimited.
    var bodyFraming: BodyFraming

    /// How a request body is delimited on the wire.
    enum BodyFraming: Sendable, Equatable {
        /// No body.
        case none
        /// Exactly this many bytes (`Content-Length`).
        case length(Int)
        /// `Transfer-Encoding: chunked`.
        case chunked
    }

    /// The version as it appears on the wire, e.g. `HTTP/1.1`.
    var versionString: String { "HTTP/\(version.major).\(version.minor)" }

    /// Whether the request is HTTP/1.1 or later.
    var isHTTP11: Bool { version.major > 1 || (version.major == 1 && version.minor >= 1) }

    /// The first value of the header `name`, compared case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.0.caseInsensitiveCompare(name) == .orderedSame }?.1
    }

    /// Every value of the header `name`, in order.
    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.0.caseInsensitiveCompare(name) == .orderedSame }.map(\.1)
    }

    /// Whether a comma-separated header contains `token` (case-insensitive), e.g. `Connection: close`.
    func headerContainsToken(_ name: String, _ token: String) -> Bool {
        headerValues(name).contains { value in
            value.split(separator: ",").contains {
                $0.trimmingCharacters(in: .whitespaces).caseInsensitiveCompare(token) == .orderedSame
            }
        }
    }

    /// Whether the connection may stay open after this request (HTTP/1.1 unless `Connection: close`;
    /// HTTP/1.0 only with `Connection: keep-alive`).
    var keepAlive: Bool {
        if headerContainsToken("Connection", "close") { return false }
        return isHTTP11 || headerContainsToken("Connection", "keep-alive")
    }

    /// Whether the client sent `Expect: 100-continue`.
    var expectsContinue: Bool {
        header("Expect")?.lowercased().hasPrefix("100-continue") ?? false
    }

    /// The last value of query item `name`, if present.
    func query(_ name: String) -> String? {
        queryItems.last { $0.0 == name }?.1
    }

    /// The last value of query item `name` parsed as an integer.
    func queryInt(_ name: String) -> Int? {
        query(name).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Whether query item `name` is present with a true-ish value (`1`, `true`, `yes` or empty).
    func queryFlag(_ name: String) -> Bool {
        guard let value = query(name)?.lowercased() else { return false }
        return ["", "1", "true", "yes"].contains(value)
    }

    /// The query items as a dictionary; the last value wins for repeated names.
    var queryDictionary: [String: String] {
        var result: [String: String] = [:]
        for (name, value) in queryItems { result[name] = value }
        return result
    }

    /// Splits a request target into path, raw query and decoded query items.
    static func splitTarget(_ target: String) -> (path: String, rawQuery: String?, items: [(String, String)]) {
        var rest = Substring(target)
        // Absolute-form (RFC 9112 3.2.2): only a target that *starts* with `http://` or `https://`.
        // A `://` later on (`/redirect-to?url=http://...`) belongs to the path or query.
        if let scheme = ["http://", "https://"].first(where: { rest.lowercased().hasPrefix($0) }) {
            rest = rest.dropFirst(scheme.count)
            if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                rest = rest[slash...]
            } else {
                rest = ""
            }
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var path = rest
        var rawQuery: Substring?
        if let mark = rest.firstIndex(of: "?") {
            path = rest[..<mark]
            rawQuery = rest[rest.index(after: mark)...]
        }
        let pathString = path.isEmpty ? "/" : (path.hasPrefix("/") ? String(path) : "/" + path)
        var items: [(String, String)] = []
        if let rawQuery {
            for piece in rawQuery.split(separator: "&", omittingEmptySubsequences: true) {
                let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = percentDecode(pair[0])
                let value = pair.count > 1 ? percentDecode(pair[1]) : ""
                items.append((name, value))
            }
        }
        return (pathString, rawQuery.map(String.init), items)
    }

    /// Percent-decodes `text`; malformed escapes are kept as written.
    static func percentDecode(_ text: some StringProtocol) -> String {
        let string = String(text)
        guard string.contains("%") else { return string }
        return string.removingPercentEncoding ?? string
    }
}
