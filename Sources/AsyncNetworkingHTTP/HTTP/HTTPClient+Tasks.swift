import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every verb as an ``HTTPTask``: progress events and the serialized value from one call
/// (AFNetworking's `GET:parameters:headers:progress:success:failure:` and its siblings).
///
/// ```swift
/// let call = try await client.task(.get, "reports/2024", as: Report.self)
/// for await case .downloadProgress(let progress) in call.events { print(progress.fractionCompleted ?? 0) }
/// let report = try await call.value
/// ```
///
/// Each suspends only until the transfer is registered; the returned handle's ``HTTPTask/value``
/// awaits the result. Uses ``HTTPClient/transferOptions``.
extension HTTPClient {
    /// Starts `method` to `url` and returns its handle; its value is what `serializer` makes of
    /// the response (used as is: a per-call override of the client's validation).
    ///
    /// - Throws: request building errors (see ``makeRequest(_:_:parameters:headers:)``) and
    ///   ``NetworkingError/Kind/sessionInvalidated``, before anything is sent.
    public func task<Serializer: ResponseSerializer>(
        _ method: HTTPMethod, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:], serializer: Serializer
    ) async throws(NetworkingError) -> HTTPTask<Serializer.Output> {
        let request = try makeRequest(method, url, parameters: parameters, headers: headers)
        let (options, hold) = transferOptions.holdingCompletion()
        let transfer = try await manager.dataTask(with: request, options: options)
        return HTTPTask(transfer: transfer, request: request, hold: hold, finish: Self.serializing(serializer, request))
    }

    /// Starts `method` to `url`; its value is the JSON body decoded as `type` (with `decoder`, else
    /// the client's ``decoder``) under the client's ``validation``.
    public func task<Value: Decodable & Sendable>(
        _ method: HTTPMethod, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:], as type: Value.Type, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> HTTPTask<Value> {
        try await task(method, url, parameters: parameters, headers: headers, serializer: decodingSerializer(type, decoder))
    }

    /// Starts `method` to `url`; its value is what the client's ``responseSerializer`` makes of the
    /// response, under the client's ``validation``.
    public func task(
        _ method: HTTPMethod, _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:]
    ) async throws(NetworkingError) -> HTTPTask<any Sendable> {
        try await task(method, url, parameters: parameters, headers: headers, serializer: clientSerializer)
    }

    /// The result maker of a data or upload task: `serializer` over the collected body.
    static func serializing<Serializer: ResponseSerializer>(
        _ serializer: Serializer, _ request: URLRequest
    ) -> @Sendable (Data, HTTPURLResponse, URL?) throws(NetworkingError) -> Serializer.Output {
        { data, response, _ throws(NetworkingError) in try serializer.serialize(data, response: response, request: request) }
    }
}
