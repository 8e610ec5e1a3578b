/// A request the server received, as logged in ``LoopbackServer/requests``.
///
/// A request is recorded after its body has been read and before the first byte of its
/// response is sent, so a client that has a response can always find its request.
public struct RecordedRequest: Sendable {
    /// The method as sent, e.g. `GET`.
    public let method: String
    /// The request target exactly as sent, e.g. `/bytes/10?seed=1`.
    public let target: String
    /// The path of the target, still percent-encoded, e.g. `/bytes/10`.
    public let path: String
    /// Percent-decoded query items; the last value wins for repeated names.
    public let query: [String: String]
    /// Percent-decoded query items in order, repeats included.
    public let queryItems: [(String, String)]
    /// Header fields in order as (name as sent, value).
    public let headers: [(String, String)]
    /// The HTTP version, e.g. `HTTP/1.1`.
    public let httpVersion: String
    /// Which connection carried the request: 1 for the first accepted connection, and so on.
    /// Equal values mean the connection was reused (keep-alive).
    public let connectionID: Int
    /// The number of body bytes received (after removing chunked framing).
    public let bodyLength: Int
    /// The 64-bit FNV-1a hash of the body (``Checksum/fnv1a64(_:)``).
    public let bodyChecksum: UInt64

    /// Creates a record; the server makes these, tests rarely need to.
    public init(
        method: String, target: String, path: String, query: [String: String], queryItems: [(String, String)],
        headers: [(String, String)], httpVersion: String, connectionID: Int, bodyLength: Int, bodyChecksum: UInt64
    ) {
        self.method = method
        self.target = target
        self.path = path
        self.query = query
        self.queryItems = queryItems
        self.headers = headers
        self.httpVersion = httpVersion
        self.connectionID = connectionID
        self.bodyLength = bodyLength
        self.bodyChecksum = bodyChecksum
    }

    /// The first value of header `name`, compared case-insensitively; `nil` if absent.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.0.lowercased() == wanted }?.1
    }

    /// Every value of header `name` in order, compared case-insensitively.
    public func headerValues(_ name: String) -> [String] {
        let wanted = name.lowercased()
        return headers.filter { $0.0.lowercased() == wanted }.map(\.1)
    }
}
