import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A final HTTP response head as received — status, version, fields and URL — without making an
/// `HTTPURLResponse`.
///
/// What ``SessionManager/fetch(_:options:)`` returns beside the body. Foundation's
/// `HTTPURLResponse` initializer folds the case of every field name (about 20 µs for a typical head
/// on Linux, the largest single cost of a small request); this value keeps the fields as received
/// and looks them up ASCII case-insensitively, so it costs nothing until you ask. Call
/// ``makeHTTPURLResponse()`` where an API needs Foundation's type.
public struct HTTPResponseHead: Sendable, Hashable, CustomStringConvertible {
    let head: ResponseHead

    /// The URL the head answered (after any redirects the manager followed).
    public let url: URL

    init(_ head: ResponseHead, url: URL) {
        self.head = head
        self.url = url
    }

    /// The status code, 100...999.
    public var statusCode: Int { head.statusCode }

    /// The version on the status line: `HTTP/1.0`, `HTTP/1.1`, `HTTP/2` or `HTTP/3`.
    public var httpVersion: String { head.httpVersion }

    /// The reason phrase (empty for HTTP/2 and 3, and when the server sent none).
    public var reasonPhrase: String { head.reasonPhrase }

    /// Every field in the order received, repeated names as separate entries.
    public var fields: [HTTPHeader] { head.fields.map { HTTPHeader(name: $0.name, value: $0.value) } }

    /// The fields with a repeated name's values joined by `", "` at its first place (RFC 9110 list
    /// syntax). Use ``values(forHTTPHeaderField:)`` for `Set-Cookie`, whose values may hold commas.
    public var headers: HTTPHeaders { HTTPHeaders(trailerFields: head.fields) }

    /// The value of field `name`, matched ASCII case-insensitively; repeated fields joined by `", "`.
    public func value(forHTTPHeaderField name: String) -> String? { head.value(of: name) }

    /// Every value of field `name` (ASCII case-insensitive), in order.
    public func values(forHTTPHeaderField name: String) -> [String] { head.values(of: name) }

    /// The body length `Content-Length` declares, when it is one valid number.
    public var expectedContentLength: Int64? { head.contentLength }

    /// An `HTTPURLResponse` for this head (made on each call; the one URLSession delivered when the
    /// head came from the URLSession transport). `nil` only when Foundation refuses the head.
    public func makeHTTPURLResponse() -> HTTPURLResponse? { head.makeHTTPURLResponse(url: url) }

    /// `HTTP/1.1 200 OK` and one `Name: value` per line, with the values of `Set-Cookie` and the
    /// other credential fields replaced by `…` (safe to log).
    public var description: String {
        var text = "\(head.httpVersion) \(head.statusCode)"
        if !head.reasonPhrase.isEmpty { text += " \(head.reasonPhrase)" }
        for field in head.fields {
            let secret = Redaction.secretHeaderNames.contains { ResponseHead.sameName($0, field.name) }
            text += "\n\(field.name): \(secret ? Redaction.placeholder : field.value)"
        }
        return text
    }

    /// Equal when status, version, reason phrase, fields (in order) and URL are equal.
    public static func == (lhs: HTTPResponseHead, rhs: HTTPResponseHead) -> Bool {
        lhs.url == rhs.url && lhs.head == rhs.head
    }

    /// Consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(url)
        hasher.combine(head)
    }
}
