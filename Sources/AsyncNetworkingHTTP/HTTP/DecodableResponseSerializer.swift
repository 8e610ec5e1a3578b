import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decodes a `Decodable` value from the JSON body with a configurable `JSONDecoder`.
///
/// Content types and empty bodies are handled as by ``JSONResponseSerializer``; in addition an
/// empty body is always valid for ``Empty``, and is `nil` for an `Optional` type on 204/205/`HEAD`.
public struct DecodableResponseSerializer<Value: Decodable & Sendable>: ValidatingResponseSerializer {
    /// The checks made first. Default: status `200..<300`, ``ResponseValidation/jsonContentTypes``.
    public var validation: ResponseValidation
    /// The decoder. Default: a new `JSONDecoder`.
    public var decoder: JSONDecoder

    /// Creates a serializer; every argument has the default described on its property.
    public init(
        _ type: Value.Type = Value.self,
        decoder: JSONDecoder = JSONDecoder(),
        validation: ResponseValidation = ResponseValidation(acceptableContentTypes: ResponseValidation.jsonContentTypes)
    ) {
        self.decoder = decoder
        self.validation = validation
    }

    /// Validates and decodes the body.
    ///
    /// - Throws: ``NetworkingError/Kind/responseSerializationFailed`` with the `DecodingError` as
    ///   ``NetworkingError/underlyingError`` and the body in ``NetworkingError/body``.
    public func serialize(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) -> Value {
        try validation.validate(data, response: response, request: request)
        return try decodeJSON(Value.self, from: data, decoder: decoder, validation: validation, response: response, request: request)
    }
}
