import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A serialized value together with everything known about the exchange that produced it.
public struct HTTPResponse<Value: Sendable>: Sendable {
    /// The value the response serializer produced.
    public var value: Value
    /// The final HTTP response (after redirects).
    public let response: HTTPURLResponse
    /// The body as received (empty when there was none).
    public let data: Data
    /// The request as sent, after base-URL resolution and parameter serialization.
    public let request: URLRequest
    /// Timing and byte counts measured by AsyncNetworking.
    public let metrics: TransferMetrics

    /// Creates a response; the client makes these.
    public init(value: Value, response: HTTPURLResponse, data: Data, request: URLRequest, metrics: TransferMetrics) {
        self.value = value
        self.response = response
        self.data = data
        self.request = request
        self.metrics = metrics
    }

    /// Trailer fields that followed the body (empty when none; see ``TransferMetrics/trailers``).
    public var trailers: HTTPHeaders { metrics.trailers }

    /// The response's status code.
    public var statusCode: Int { response.statusCode }

    /// The value of a response header, matched case-insensitively.
    public func value(forHTTPHeaderField field: String) -> String? {
        response.value(forHTTPHeaderField: field)
    }

    /// The same exchange with the value transformed.
    public func map<NewValue: Sendable, Failure: Error>(
        _ transform: (Value) throws(Failure) -> NewValue
    ) throws(Failure) -> HTTPResponse<NewValue> {
        HTTPResponse<NewValue>(value: try transform(value), response: response, data: data, request: request, metrics: metrics)
    }
}
