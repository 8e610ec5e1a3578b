import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request that reached an ``HTTPStubs`` registry: what a stub's handler receives and what
/// ``HTTPStubs/recordedRequests`` keeps, to assert on.
public struct StubRequest: Sendable {
    /// The method, e.g. `"GET"`.
    public var method: HTTPMethod
    /// The URL as sent.
    public var url: URL
    /// The header fields as sent by the manager (names as given; see ``header(_:)``).
    public var headers: [String: String]
    /// The body as sent: `httpBody`, upload data, or everything a file or a body stream produced
    /// (file and streamed uploads). `nil` when there was none.
    public var body: Data?
    /// The request as the manager sent it (on the stubs transport, with ``body`` as `httpBody`;
    /// through `URLProtocol`, as URLSession passed it on).
    public var urlRequest: URLRequest

    /// Creates a record (the registry makes these; tests rarely need to).
    public init(urlRequest: URLRequest, body: Data?) {
        self.urlRequest = urlRequest
        self.method = HTTPMethod(urlRequest.httpMethod ?? "GET")
        self.url = urlRequest.url ?? URL(string: "about:blank")!
        self.headers = urlRequest.allHTTPHeaderFields ?? [:]
        self.body = body
    }

    /// The value of header `name`, compared case-insensitively; `nil` if absent.
    public func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body decoded as JSON into `type` (with a new `JSONDecoder`).
    ///
    /// - Throws: the decoding error, or ``NetworkingError/Kind/responseSerializationFailed`` when
    ///   there is no body.
    public func decodeBody<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value {
        guard let body else { throw NetworkingError(.responseSerializationFailed, "the request has no body") }
        return try JSONDecoder().decode(Value.self, from: body)
    }

    /// The query items of ``url``, in order (percent-decoded).
    public var queryItems: [URLQueryItem] {
        URLComponents(url: url, resolvingAgainstBaseURL: true)?.queryItems ?? []
    }
}
