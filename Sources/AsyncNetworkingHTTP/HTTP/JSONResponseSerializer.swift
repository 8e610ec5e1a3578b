import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Parses the body as JSON into a ``JSONValue`` (AFNetworking's `AFJSONResponseSerializer`, with a
/// `Sendable` tree instead of `id`).
///
/// Accepts `application/json`, `text/json` and `text/javascript` by default; add a type without
/// subclassing: `JSONResponseSerializer().acceptingContentTypes("text/html")`. Any JSON value is
/// accepted at the top level (fragments included).
///
/// An empty body is ``JSONValue/null`` for the statuses and methods the validation allows empty
/// (204, 205, `HEAD`), else ``NetworkingError/Kind/responseSerializationFailed``.
public struct JSONResponseSerializer: ValidatingResponseSerializer, Hashable {
    /// The checks made first. Default: status `200..<300`, ``ResponseValidation/jsonContentTypes``.
    public var validation: ResponseValidation
    /// Removes the keys whose value is `null` from every object, at any depth (arrays included),
    /// as AFNetworking's `removesKeysWithNullValues`. Default `false`.
    public var removesKeysWithNullValues: Bool

    /// Creates a serializer. Default validation: status `200..<300`, the JSON content types;
    /// `null` values kept.
    public init(
        validation: ResponseValidation = ResponseValidation(acceptableContentTypes: ResponseValidation.jsonContentTypes),
        removesKeysWithNullValues: Bool = false
    ) {
        self.validation = validation
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    /// Validates and parses the body.
    ///
    /// - Throws: ``NetworkingError/Kind/responseSerializationFailed`` with the `DecodingError`
    ///   when the body is not JSON, and the body in ``NetworkingError/body``.
    public func serialize(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) -> JSONValue {
        try validation.validate(data, response: response, request: request)
        let value = try decodeJSON(JSONValue.self, from: data, decoder: JSONDecoder(), validation: validation, response: response, request: request)
        return removesKeysWithNullValues ? value.removingNullValues() : value
    }
}

extension JSONValue {
    /// The value with every object key whose value is ``null`` removed, at any depth.
    public func removingNullValues() -> JSONValue {
        switch self {
        case .object(let object): .object(object.filter { !$0.value.isNull }.mapValues { $0.removingNullValues() })
        case .array(let array): .array(array.map { $0.removingNullValues() })
        default: self
        }
    }
}
