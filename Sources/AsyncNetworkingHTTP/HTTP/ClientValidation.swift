import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Client-wide changes to response validation, applied to the serializer of every call that does
/// not pass its own (``HTTPClient/validation``): AFNetworking's habit of configuring
/// `manager.responseSerializer.acceptableStatusCodes` and `acceptableContentTypes` once.
///
/// ```swift
/// client.validation.additionalContentTypes.insert("text/html")   // a server that mislabels its JSON
/// client.validation.acceptableStatusCodes = IndexSet(200..<300).union(IndexSet(integer: 304))
/// ```
///
/// Applies to serializers that conform to ``ValidatingResponseSerializer`` (every serializer of
/// this library); a custom serializer that does not is used as it is. A call that passes
/// `serializer:` is validated by that serializer alone — the per-call override.
public struct ClientValidation: Sendable, Hashable {
    /// Replaces the serializer's acceptable status codes. Default `nil`: the serializer's own
    /// (`200..<300`).
    public var acceptableStatusCodes: IndexSet?
    /// Replaces the serializer's acceptable MIME types. Default `nil`: the serializer's own (for
    /// JSON, ``ResponseValidation/jsonContentTypes``). Lowercased when applied.
    public var acceptableContentTypes: Set<String>?
    /// Added to the acceptable MIME types of a serializer that restricts them (one that accepts any
    /// type is left alone). Default empty.
    public var additionalContentTypes: Set<String>

    /// Creates a validation change; every argument has the default described on its property.
    public init(
        acceptableStatusCodes: IndexSet? = nil, acceptableContentTypes: Set<String>? = nil,
        additionalContentTypes: Set<String> = []
    ) {
        self.acceptableStatusCodes = acceptableStatusCodes
        self.acceptableContentTypes = acceptableContentTypes
        self.additionalContentTypes = additionalContentTypes
    }

    /// Whether it changes nothing.
    public var isIdentity: Bool {
        acceptableStatusCodes == nil && acceptableContentTypes == nil && additionalContentTypes.isEmpty
    }

    /// `validation` with these changes.
    public func applied(to validation: ResponseValidation) -> ResponseValidation {
        var validation = validation
        if let acceptableStatusCodes { validation.acceptableStatusCodes = acceptableStatusCodes }
        if let acceptableContentTypes { validation.acceptableContentTypes = Set(acceptableContentTypes.map { $0.lowercased() }) }
        if !additionalContentTypes.isEmpty, validation.acceptableContentTypes != nil {
            validation.acceptableContentTypes?.formUnion(additionalContentTypes.map { $0.lowercased() })
        }
        return validation
    }

    /// `serializer` with these changes made to its validation (when it is a
    /// ``ValidatingResponseSerializer``; else `serializer` itself).
    public func applied<Serializer: ResponseSerializer>(to serializer: Serializer) -> Serializer {
        guard !isIdentity, var validating = serializer as? any ValidatingResponseSerializer else { return serializer }
        validating.validation = applied(to: validating.validation)
        return validating as? Serializer ?? serializer
    }
}

extension HTTPClient {
    /// A copy that also accepts these MIME types for every call without its own serializer (the
    /// classic `text/html` JSON): `let lenient = client.acceptingContentTypes("text/html")`.
    public func acceptingContentTypes(_ types: String...) -> HTTPClient {
        var copy = self
        copy.validation.additionalContentTypes.formUnion(types)
        return copy
    }

    /// A copy that accepts exactly these status codes for every call without its own serializer.
    public func acceptingStatusCodes(_ codes: some Sequence<Int>) -> HTTPClient {
        var copy = self
        copy.validation.acceptableStatusCodes = IndexSet(codes)
        return copy
    }

    /// The serializer of the `as:` forms: JSON decoded as `type` with `decoder` (else ``decoder``),
    /// under the client's ``validation``.
    func decodingSerializer<Value: Decodable & Sendable>(
        _ type: Value.Type, _ decoder: JSONDecoder?
    ) -> DecodableResponseSerializer<Value> {
        validation.applied(to: DecodableResponseSerializer(type, decoder: decoder ?? self.decoder))
    }

    /// ``responseSerializer`` under the client's ``validation``.
    var clientSerializer: AnyClientSerializer {
        AnyClientSerializer(validation.applied(to: responseSerializer))
    }

    /// `serializer` under the client's ``validation``: used where a call's serializer defaults to
    /// one of the library's.
    func validated<Serializer: ResponseSerializer>(_ serializer: Serializer) -> Serializer {
        validation.applied(to: serializer)
    }
}

/// ``HTTPClient/responseSerializer`` with its output as `any Sendable` (AFNetworking's `id responseObject`).
struct AnyClientSerializer: ResponseSerializer {
    let base: any ResponseSerializer

    init(_ base: any ResponseSerializer) {
        self.base = base
    }

    func serialize(_ data: Data, response: HTTPURLResponse, request: URLRequest?) throws(NetworkingError) -> any Sendable {
        try Self.run(base, data, response, request)
    }

    private static func run<S: ResponseSerializer>(
        _ serializer: S, _ data: Data, _ response: HTTPURLResponse, _ request: URLRequest?
    ) throws(NetworkingError) -> any Sendable {
        try serializer.serialize(data, response: response, request: request)
    }
}
