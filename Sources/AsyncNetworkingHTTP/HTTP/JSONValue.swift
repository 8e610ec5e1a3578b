import Foundation

/// A JSON document as a `Sendable` value tree: what ``JSONResponseSerializer`` returns, and what
/// request parameters are made of (``Parameters``).
///
/// Literals build it directly, so parameters read like AFNetworking's dictionaries:
///
/// ```swift
/// let parameters: Parameters = ["q": "swift", "page": 2, "filter": ["tags": ["a", "b"]], "draft": false]
/// ```
///
/// Numbers keep their kind: an integral JSON number that fits an `Int` decodes as ``int(_:)``, any
/// other number as ``double(_:)``. A `Decimal` (``decimal(_:)``) keeps its exact digits in every
/// serializer: `Decimal(string: "19.99")` is sent as `19.99`, never `19.990000000000002`. Object
/// keys are unordered; serializers sort them for stable output.
public enum JSONValue: Sendable, Hashable {
    /// A string.
    case string(String)
    /// An integral number.
    case int(Int)
    /// A floating-point number. `NaN` and the infinities cannot be written as JSON: a JSON request
    /// serializer rejects them with ``NetworkingError/Kind/requestSerializationFailed``.
    case double(Double)
    /// A decimal number written with exactly its digits (`19.99`, `12345678901234567.891`) in URL
    /// queries, form bodies and JSON bodies; property lists, which only have binary reals, get its
    /// nearest `Double`.
    case decimal(Decimal)
    /// `true` or `false`.
    case bool(Bool)
    /// JSON `null` (in a URL-encoded query, the key alone, as in AFNetworking).
    case null
    /// An ordered array.
    case array([JSONValue])
    /// An object (a dictionary with string keys).
    case object([String: JSONValue])

    /// The element for `key` when this is an ``object(_:)``, else `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    /// The element at `index` when this is an ``array(_:)`` and the index is in range, else `nil`.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// The string, when this is a ``string(_:)``.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is an ``int(_:)`` (or a ``double(_:)`` with an exact integral value).
    public var intValue: Int? {
        switch self {
        case .int(let value): value
        case .double(let value): Int(exactly: value)
        case .decimal(let value): Int(value.description)
        default: nil
        }
    }

    /// The number as a `Double`, when this is an ``int(_:)`` or a ``double(_:)``.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        case .decimal(let value): Self.nearestDouble(to: value)
        default: nil
        }
    }

    /// The number as a `Decimal`, when this is an ``int(_:)``, a ``decimal(_:)``, or a finite
    /// ``double(_:)`` (converted from its shortest decimal text, so `0.1` is exactly `0.1`).
    public var decimalValue: Decimal? {
        switch self {
        case .int(let value): Decimal(value)
        case .double(let value): value.isFinite ? Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")) : nil
        case .decimal(let value): value
        default: nil
        }
    }

    /// The `Double` nearest to `value`, parsed from its decimal text (`NSDecimalNumber.doubleValue`
    /// is off by an ulp for values such as 19.99 in swift-corelibs-foundation).
    static func nearestDouble(to value: Decimal) -> Double {
        Double(value.description) ?? NSDecimalNumber(decimal: value).doubleValue
    }

    /// The Boolean, when this is a ``bool(_:)``.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an ``array(_:)``.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this is an ``object(_:)``.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is ``null``.
    public var isNull: Bool { self == .null }
}

extension JSONValue: Codable {
    /// A decoder `userInfo` flag (`true`): a non-integral number whose text a `Double` cannot hold
    /// exactly decodes as ``decimal(_:)`` instead of ``double(_:)``.
    static let keepsExactDecimals = CodingUserInfoKey(rawValue: "AsyncNetworking.keepsExactDecimals")!

    /// Decodes any JSON value. Booleans stay booleans and integral numbers that fit become ``int(_:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if decoder.userInfo[Self.keepsExactDecimals] as? Bool == true, let exact = try? container.decode(Decimal.self) {
            // Parameters read back from an Encodable's JSON keep digits a Double (or an Int
            // decoded through one) would lose.
            if let value = Int(exact.description) {
                self = .int(value)
            } else if let value = try? container.decode(Double.self), JSONValue.double(value).decimalValue == exact {
                self = .double(value)
            } else {
                self = .decimal(exact)
            }
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    /// Encodes the value; `NaN` and infinities fail unless the encoder has a non-conforming float strategy.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .decimal(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// A ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An ``int(_:)``.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An ``array(_:)``.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// An ``object(_:)``; a repeated key keeps its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// ``null``.
    public init(nilLiteral: ()) { self = .null }
}
