import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AFNetworking's `AFJSONRequestSerializer`: parameters as an `application/json` body, except for
/// `GET`, `HEAD` and `DELETE`, whose parameters are URL-encoded into the query string (as in
/// AFNetworking).
///
/// ``Parameters/encodable(_:)`` values are encoded directly with ``encoder``, so any `Encodable`
/// works, including top-level arrays. `NaN` and infinities (without a non-conforming float
/// strategy), and `Encodable` values whose `encode(to:)` throws, fail with
/// ``NetworkingError/Kind/requestSerializationFailed`` (the `EncodingError` is the
/// ``NetworkingError/underlyingError``) and nothing is sent.
public struct JSONRequestSerializer: RequestSerializer {
    /// Encodes the body. Default: a `JSONEncoder` with `outputFormatting` `.sortedKeys`, for stable output.
    public var encoder: JSONEncoder
    /// The methods whose parameters go in the query string instead of the body. Default
    /// ``HTTPMethod/encodingParametersInURL`` (`GET`, `HEAD`, `DELETE`).
    public var methodsEncodingParametersInURL: Set<HTTPMethod>

    /// Creates a serializer; every argument has the default described on its property.
    public init(
        encoder: JSONEncoder = JSONRequestSerializer.makeDefaultEncoder(),
        methodsEncodingParametersInURL: Set<HTTPMethod> = HTTPMethod.encodingParametersInURL
    ) {
        self.encoder = encoder
        self.methodsEncodingParametersInURL = methodsEncodingParametersInURL
    }

    /// A `JSONEncoder` with `.sortedKeys`.
    public static func makeDefaultEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }

    /// Writes `parameters` as the JSON body (setting `Content-Type: application/json` unless the
    /// request has a content type), or into the query for ``methodsEncodingParametersInURL``.
    public func serialize(_ request: URLRequest, with parameters: Parameters?) throws(NetworkingError) -> URLRequest {
        try URLEncodedRequestSerializer.serializeBody(
            request, with: parameters, methodsEncodingParametersInURL: methodsEncodingParametersInURL,
            contentType: "application/json"
        ) { parameters throws(NetworkingError) in try encodeBody(parameters, request: request) }
    }

    private func encodeBody(_ parameters: Parameters, request: URLRequest) throws(NetworkingError) -> Data {
        let value: any Encodable
        switch parameters {
        case .values(let values): value = JSONValue.object(values)
        case .orderedValues(let pairs): value = JSONValue.object(Dictionary(pairs, uniquingKeysWith: { _, last in last }))
        case .encodable(let encodable): value = encodable
        case .untyped:
            do { value = JSONValue.object(try parameters.values(encoder: encoder)) } catch { throw error.adding(request: request) }
        }
        do {
            return try encoder.encode(value)
        } catch {
            throw NetworkingError(
                .requestSerializationFailed, "the parameters could not be encoded as JSON",
                request: request, underlyingError: error
            )
        }
    }
}
