import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a response and its body into a value, validating it first (AFNetworking's
/// `AFURLResponseSerialization`).
///
/// Serializers are value types: configure one through its properties (for example
/// `JSONResponseSerializer().acceptingContentTypes("text/html")`), no subclassing. Write your own
/// by conforming to this protocol; conform to ``ValidatingResponseSerializer`` to get the standard
/// status-code and content-type checks.
public protocol ResponseSerializer: Sendable {
    /// The value produced.
    associatedtype Output: Sendable

    /// Validates the response and produces the value. Runs once the whole body has arrived.
    ///
    /// - Parameters:
    ///   - data: the body (empty when there was none).
    ///   - response: the final HTTP response.
    ///   - request: the request as sent (the method decides, for example, whether an empty body is valid).
    /// - Throws: a ``NetworkingError`` carrying `request`, `response` and the body:
    ///   ``NetworkingError/Kind/unacceptableStatusCode(_:)``, ``NetworkingError/Kind/unacceptableContentType(_:)``
    ///   or ``NetworkingError/Kind/responseSerializationFailed`` (with the decoding error as
    ///   ``NetworkingError/underlyingError``).
    func serialize(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) -> Output
}

/// A response serializer that validates with a ``ResponseValidation``; gives it the
/// `acceptableStatusCodes` and `acceptableContentTypes` properties and chainable modifiers.
public protocol ValidatingResponseSerializer: ResponseSerializer {
    /// The checks made before the body is read.
    var validation: ResponseValidation { get set }
}

extension ValidatingResponseSerializer {
    /// Status codes accepted; see ``ResponseValidation/acceptableStatusCodes``. Default `200..<300`.
    public var acceptableStatusCodes: IndexSet {
        get { validation.acceptableStatusCodes }
        set { validation.acceptableStatusCodes = newValue }
    }

    /// MIME types accepted, or `nil` for any; see ``ResponseValidation/acceptableContentTypes``.
    public var acceptableContentTypes: Set<String>? {
        get { validation.acceptableContentTypes }
        set { validation.acceptableContentTypes = newValue.map { Set($0.map { $0.lowercased() }) } }
    }

    /// A copy that also accepts these MIME types (for example `text/html` for a server that
    /// mislabels its JSON). Has no effect when any type is already accepted.
    public func acceptingContentTypes(_ types: String...) -> Self {
        var copy = self
        copy.acceptableContentTypes?.formUnion(types.map { $0.lowercased() })
        return copy
    }

    /// A copy that accepts exactly these status codes.
    public func acceptingStatusCodes(_ codes: some Sequence<Int>) -> Self {
        var copy = self
        copy.acceptableStatusCodes = IndexSet(codes)
        return copy
    }
}

/// A type with a value that stands for "no body": returned by the decoding serializers for an
/// empty body instead of failing (``Empty``, `Optional` as `nil`, ``JSONValue`` as ``JSONValue/null``).
public protocol EmptyResponse {
    /// The value for an empty body.
    static var emptyValue: Self { get }
}

/// The value of a response with no body, for a 204 or a `HEAD`: `try await client.delete("item/1", as: Empty.self)`.
public struct Empty: Codable, Sendable, Hashable, EmptyResponse {
    /// Creates the empty value.
    public init() {}
    /// The empty value.
    public static var emptyValue: Empty { Empty() }
}

extension Optional: EmptyResponse {
    /// `nil`.
    public static var emptyValue: Optional<Wrapped> { nil }
}

extension JSONValue: EmptyResponse {
    /// ``JSONValue/null``.
    public static var emptyValue: JSONValue { .null }
}

extension ResponseSerializer {
    /// The empty value of `type` when it has one (``EmptyResponse``), else `nil`.
    static func emptyValue<Value>(of type: Value.Type) -> Value? {
        (type as? any EmptyResponse.Type)?.emptyValue as? Value
    }

    /// The error for a body that is empty where a value was expected.
    static func emptyBodyError(_ typeName: String, response: HTTPURLResponse, request: URLRequest?) -> NetworkingError {
        NetworkingError(
            .responseSerializationFailed,
            "the body is empty and \(typeName) has no empty value (use Empty or an Optional for status \(response.statusCode))",
            request: request, response: response
        )
    }
}
