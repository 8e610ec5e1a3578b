import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A final (non-1xx) HTTP response head as libcurl delivered it: status, version and header fields.
struct CurlResponseHead: Sendable, Hashable {
    /// The status code, 200...999.
    var statusCode: Int
    /// The version as on the status line: `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
    var httpVersion: String
    /// The reason phrase (empty for HTTP/2 and 3, and when the server sent none).
    var reasonPhrase: String
    /// Every field in the order received, folded continuation lines joined to their field with a
    /// space; duplicates are kept as separate entries.
    var fields: [(name: String, value: String)]

    init(statusCode: Int, httpVersion: String, reasonPhrase: String = "", fields: [(name: String, value: String)] = []) {
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.reasonPhrase = reasonPhrase
        self.fields = fields
    }

    /// Fields combined the way `HTTPURLResponse.allHeaderFields` holds them: one entry per name
    /// (spelled as first received), repeated values joined with `", "` in order. That includes
    /// `Set-Cookie`, which `HTTPCookie.cookies(withResponseHeaderFields:for:)` splits again; the
    /// separate values stay available in ``setCookies``.
    var headerFields: [String: String] {
        var combined: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in fields {
            let key = name.lowercased()
            if let first = spelling[key] {
                combined[first] = combined[first]! + ", " + value
            } else {
                spelling[key] = name
                combined[name] = value
            }
        }
        return combined
    }

    /// Each `Set-Cookie` value separately, in order (cookie values may contain commas, so they are
    /// best not re-split from the combined field).
    var setCookies: [String] { values(of: "Set-Cookie") }

    /// Every value of field `name` (case-insensitive), in order.
    func values(of name: String) -> [String] {
        let wanted = name.lowercased()
        return fields.filter { $0.name.lowercased() == wanted }.map(\.value)
    }

    /// The combined value of field `name` (case-insensitive), or `nil`.
    func value(of name: String) -> String? {
        let all = values(of: name)
        return all.isEmpty ? nil : all.joined(separator: ", ")
    }

    /// The `HTTPURLResponse` for this head received from `url`, or `nil` if Foundation refuses it.
    func makeHTTPURLResponse(url: URL) -> HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
    }

    static func == (lhs: CurlResponseHead, rhs: CurlResponseHead) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.httpVersion == rhs.httpVersion && lhs.reasonPhrase == rhs.reasonPhrase
            && lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(httpVersion)
        hasher.combine(fields.count)
    }
}
