import Foundation

/// The parameters of a request, which the client's ``RequestSerializer`` turns into a query string
/// or a body.
///
/// Three forms, for three habits:
///
/// ```swift
/// // A dictionary literal of JSONValue (the usual case):
/// try await client.get("search", parameters: ["q": "swift", "page": 2], as: Results.self)
/// // Any Encodable value (encoded directly as JSON or a property list; through its JSON form for
/// // a URL-encoded query or form):
/// try await client.post("users", parameters: .encodable(NewUser(name: "Ada")), as: User.self)
/// // An AFNetworking-style untyped dictionary (checked when the request is built):
/// try await client.post("legacy", parameters: .untyped(["when": 12, "tags": ["a"]]), as: Reply.self)
/// ```
///
/// Whatever the form, a value the serializer cannot represent (a `NaN` for JSON, a `Date` in an
/// untyped dictionary, an `Encodable` whose `encode(to:)` throws) fails the call with
/// ``NetworkingError/Kind/requestSerializationFailed`` before anything is sent.
public enum Parameters: Sendable, ExpressibleByDictionaryLiteral {
    /// Named values (what a dictionary literal makes).
    case values([String: JSONValue])
    /// An `Encodable` value. JSON and property-list serializers encode it with their encoders; the
    /// URL-encoded serializer uses its JSON form, which must be an object.
    case encodable(any Encodable & Sendable)
    /// An untyped dictionary, as AFNetworking's `NSDictionary` parameters: strings, numbers, Booleans,
    /// `NSNull`, arrays and dictionaries of these. Converted with ``JSONValue/init(converting:)``.
    case untyped([String: any Sendable])
    /// Named values in a given order (see ``ordered(_:)``): the order is kept by a URL-encoded
    /// query or form whose style says ``URLEncoding/Style/KeyOrdering/insertion``.
    case orderedValues([(String, JSONValue)])

    /// A ``values(_:)`` dictionary; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .values(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// The parameters as named ``JSONValue``s, converting ``encodable(_:)`` and ``untyped(_:)``.
    ///
    /// - Parameter encoder: encodes an ``encodable(_:)`` value. Default: a new `JSONEncoder`.
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` when a value cannot be
    ///   converted, or an `Encodable` value's JSON form is not an object.
    public func values(encoder: JSONEncoder = JSONEncoder()) throws(NetworkingError) -> [String: JSONValue] {
        switch self {
        case .values(let values):
            return values
        case .orderedValues(let pairs):
            return Dictionary(pairs, uniquingKeysWith: { _, last in last })
        case .untyped(let dictionary):
            guard case .object(let values) = try JSONValue(converting: dictionary) else { return [:] }
            return values
        case .encodable(let value):
            let converted = try JSONValue(encoding: value, encoder: encoder)
            guard case .object(let values) = converted else {
                throw NetworkingError(
                    .requestSerializationFailed,
                    "\(type(of: value)) does not encode as a JSON object, so it cannot be named parameters"
                )
            }
            return values
        }
    }
}
