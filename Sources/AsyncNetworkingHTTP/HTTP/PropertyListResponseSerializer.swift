import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Decodes a property-list body (XML or binary) into a `Decodable` value (AFNetworking's
/// `AFPropertyListResponseSerializer`, typed).
///
/// Accepts `application/x-plist` by default. Empty bodies are handled as by
/// ``DecodableResponseSerializer``.
public struct PropertyListResponseSerializer<Value: Decodable & Sendable>: ValidatingResponseSerializer {
    /// The checks made first. Default: status `200..<300`, ``ResponseValidation/propertyListContentTypes``.
    public var validation: ResponseValidation
    /// The decoder. Default: a new `PropertyListDecoder`.
    public var decoder: PropertyListDecoder

    /// Creates a serializer; every argument has the default described on its property.
    public init(
        _ type: Value.Type = Value.self,
        decoder: PropertyListDecoder = PropertyListDecoder(),
        validation: ResponseValidation = ResponseValidation(acceptableContentTypes: ResponseValidation.propertyListContentTypes)
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
        return try decodeBody(
            Value.self, from: data, blank: data.isEmpty, describedAs: "a \(Value.self) property list",
            validation: validation, response: response, request: request
        ) { data in try decoder.decode(Value.self, from: data) }
    }
}

extension ResponseValidation {
    /// The property-list type AFNetworking accepts: `application/x-plist`.
    public static let propertyListContentTypes: Set<String> = ["application/x-plist"]
}
