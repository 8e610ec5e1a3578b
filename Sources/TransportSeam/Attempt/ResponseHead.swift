import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A final (non-1xx) HTTP response head as a transport received it: status, version and fields.
///
/// This is what crosses the seam (``AttemptEvent/head(_:)``): the Session layer decides redirects,
/// challenges, limits and caching on it directly. An `HTTPURLResponse` — whose initializer
/// canonicalizes every field name with Foundation's case folding, ~20 µs for a typical head on
/// Linux — is made from it only where a public API hands one out (``TransferState/response``).
package struct ResponseHead: Sendable, Hashable {
    /// The status code, 100...999.
    package var statusCode: Int
    /// The version as on the status line: `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
    package var httpVersion: String
    /// The reason phrase (empty for HTTP/2 and 3, and when the server sent none).
    package var reasonPhrase: String
    /// Every field in the order received, folded continuation lines joined to their field with a
    /// space; duplicates are kept as separate entries.
    package var fields: [(name: String, value: String)]
    /// The URL this head answered, when the transport knows it better than the request does
    /// (URLSession after a redirect it followed itself). Default `nil`: the attempt's URL.
    package var url: URL?
    /// The response URLSession made, when the head came from it (reused, never made twice).
    package var foundationResponse: HTTPURLResponse?

    package init(statusCode: Int, httpVersion: String, reasonPhrase: String = "", fields: [(name: String, value: String)] = []) {
        self.statusCode = statusCode
        self.httpVersion = httpVersion
        self.reasonPhrase = reasonPhrase
        self.fields = fields
    }

    /// The head of a response URLSession delivered (its fields as Foundation holds them).
    package init(_ response: HTTPURLResponse) {
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(response.allHeaderFields.count)
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            fields.append((name, value as? String ?? "\(value)"))
        }
        self.init(statusCode: response.statusCode, httpVersion: "HTTP/1.1", fields: fields)
        url = response.url
        foundationResponse = response
    }

    /// Fields combined the way `HTTPURLResponse.allHeaderFields` holds them: one entry per name
    /// (spelled as first received), repeated values joined with `", "` in order. That includes
    /// `Set-Cookie`, which `HTTPCookie.cookies(withResponseHeaderFields:for:)` splits again; the
    /// separate values stay available in ``setCookies``.
    var headerFields: [String: String] {
        var combined: [String: String] = [:]
        combined.reserveCapacity(fields.count)
        for (index, field) in fields.enumerated() {
            guard combined[field.name] == nil,
                  !fields[..<index].contains(where: { Self.sameName($0.name, field.name) }) else { continue }
            var value = field.value
            for later in fields[(index + 1)...] where Self.sameName(later.name, field.name) {
                value += ", " + later.value
            }
            combined[field.name] = value
        }
        return combined
    }

    /// Each `Set-Cookie` value separately, in order (cookie values may contain commas, so they are
    /// best not re-split from the combined field).
    package var setCookies: [String] { values(of: "Set-Cookie") }

    /// Every value of field `name` (ASCII case-insensitive), in order.
    package func values(of name: String) -> [String] {
        fields.compactMap { Self.sameName($0.name, name) ? $0.value : nil }
    }

    /// The combined value of field `name` (ASCII case-insensitive), or `nil`.
    package func value(of name: String) -> String? {
        var combined: String?
        for field in fields where Self.sameName(field.name, name) {
            combined = combined.map { $0 + ", " + field.value } ?? field.value
        }
        return combined
    }

    /// Whether a field named `name` is present.
    package func contains(_ name: String) -> Bool { fields.contains { Self.sameName($0.name, name) } }

    /// The body length the head declares (`Content-Length`), when it is one valid number: digits
    /// only (RFC 9110 §8.6: no sign, no space, no list) that fit an Int64.
    package var contentLength: Int64? {
        guard let value = value(of: "Content-Length"), !value.isEmpty,
              value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(value)
    }

    /// The `HTTPURLResponse` for this head received from `url`, or `nil` if Foundation refuses it.
    package func makeHTTPURLResponse(url: URL) -> HTTPURLResponse? {
        if let foundationResponse { return foundationResponse }
        return HTTPURLResponse(url: url, statusCode: statusCode, httpVersion: httpVersion, headerFields: headerFields)
    }

    /// Field names compare ASCII case-insensitively (RFC 9110 §5.1); no string is allocated.
    package static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return true
            case (let a?, let b?):
                if a == b { continue }
                let foldedA = a &- 65 < 26 ? a | 0x20 : a
                let foldedB = b &- 65 < 26 ? b | 0x20 : b
                if foldedA != foldedB { return false }
            default: return false
            }
        }
    }

    package static func == (lhs: ResponseHead, rhs: ResponseHead) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.httpVersion == rhs.httpVersion && lhs.reasonPhrase == rhs.reasonPhrase
            && lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(statusCode)
        hasher.combine(httpVersion)
        hasher.combine(fields.count)
    }
}
