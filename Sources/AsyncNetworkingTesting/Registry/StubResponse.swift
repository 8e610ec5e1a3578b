import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a stub answers: a response (status, headers, body, optionally delayed and streamed in
/// chunks) or a transport failure.
///
/// ```swift
/// .json(User(id: 1, name: "Ada"))                        // 200, application/json
/// .status(404)
/// .text("slow", status: 200).delayed(by: .seconds(2))
/// .data(bigBody).chunked(size: 16_384, interval: .milliseconds(5))   // progress events
/// .failure(.notConnectedToInternet)
/// ```
public struct StubResponse: Sendable {
    /// The status code. Default 200.
    public var statusCode: Int
    /// Header fields. `Content-Length` is added from the body when absent.
    public var headers: [String: String]
    /// The body.
    public var body: Data
    /// Waited before the response head is delivered. Default zero.
    public var delay: Duration
    /// The body is delivered in pieces of this many bytes. Default `nil`: in one piece.
    public var chunkSize: Int?
    /// Waited between pieces of the body. Default zero.
    public var chunkInterval: Duration
    /// When set, the request fails with this error instead (after ``delay``). A `URLError` becomes
    /// ``NetworkingError/Kind/transport(_:)`` with its code, as a real network failure would; a
    /// ``NetworkingError`` is thrown as it is.
    public var error: (any Error & Sendable)?

    /// Creates a response; every argument but the status has the default described on its property.
    public init(
        statusCode: Int = 200, headers: [String: String] = [:], body: Data = Data(),
        delay: Duration = .zero, chunkSize: Int? = nil, chunkInterval: Duration = .zero
    ) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.delay = delay
        self.chunkSize = chunkSize.map { max(1, $0) }
        self.chunkInterval = chunkInterval
        self.error = nil
    }

    // MARK: Builders

    /// An empty body with `status`.
    public static func status(_ status: Int, headers: [String: String] = [:]) -> StubResponse {
        StubResponse(statusCode: status, headers: headers)
    }

    /// `body` labelled `contentType` (default `application/octet-stream`).
    public static func data(
        _ body: Data, status: Int = 200, contentType: String = "application/octet-stream", headers: [String: String] = [:]
    ) -> StubResponse {
        StubResponse(statusCode: status, headers: ["Content-Type": contentType].merging(headers) { $1 }, body: body)
    }

    /// UTF-8 `text` labelled `text/plain; charset=utf-8`.
    public static func text(_ text: String, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        data(Data(text.utf8), status: status, contentType: "text/plain; charset=utf-8", headers: headers)
    }

    /// JSON bytes as they are, labelled `application/json`.
    public static func json(_ body: Data, status: Int = 200, headers: [String: String] = [:]) -> StubResponse {
        data(body, status: status, contentType: "application/json", headers: headers)
    }

    /// `value` encoded with `encoder`, labelled `application/json`. An unencodable value gives a
    /// 500 whose body says why (so the test fails visibly, not with a crash).
    public static func json<Value: Encodable>(
        _ value: Value, status: Int = 200, headers: [String: String] = [:], encoder: JSONEncoder = JSONEncoder()
    ) -> StubResponse {
        do {
            return json(try encoder.encode(value), status: status, headers: headers)
        } catch {
            return text("StubResponse.json could not encode \(Value.self): \(error)", status: 500)
        }
    }

    /// A transport failure with `code` (`.timedOut`, `.notConnectedToInternet`, ...): the transfer
    /// fails with ``NetworkingError/Kind/transport(_:)`` and that code.
    public static func failure(_ code: URLError.Code) -> StubResponse {
        var response = StubResponse()
        response.error = URLError(code)
        return response
    }

    /// A failure with any error; a ``NetworkingError`` reaches the caller as it is.
    public static func failure(_ error: any Error & Sendable) -> StubResponse {
        var response = StubResponse()
        response.error = error
        return response
    }

    // MARK: Modifiers

    /// The same response, delivered after `delay` (cancellation during the wait ends it at once).
    public func delayed(by delay: Duration) -> StubResponse {
        var copy = self
        copy.delay = delay
        return copy
    }

    /// The same response with its body delivered in pieces of `size` bytes, `interval` apart
    /// (each piece is a data event and a progress event).
    public func chunked(size: Int, interval: Duration = .zero) -> StubResponse {
        var copy = self
        copy.chunkSize = max(1, size)
        copy.chunkInterval = interval
        return copy
    }

    /// The same response with `headers` added (replacing fields of the same name).
    public func adding(headers: [String: String]) -> StubResponse {
        var copy = self
        copy.headers.merge(headers) { $1 }
        return copy
    }
}
