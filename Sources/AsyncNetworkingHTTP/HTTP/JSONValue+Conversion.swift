import Foundation

/// Conversions between ``JSONValue`` and the untyped `Any` trees of Foundation
/// (`JSONSerialization`, `PropertyListSerialization`, AFNetworking-style `[String: Any]`), and from
/// `Encodable` values.
extension JSONValue {
    /// Converts an untyped value: `String`, `Bool`, any fixed-width integer, `Double`, `Float`,
    /// `Decimal` (kept exact, as ``decimal(_:)``), `NSNumber`, `NSNull`, `nil`, and arrays and
    /// string-keyed dictionaries of these
    /// (as `JSONSerialization` produces, or as written for AFNetworking's `parameters:`).
    ///
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` naming the first value of any
    ///   other type (a `Date`, `Data`, a custom struct...) and where it is.
    public init(converting value: Any) throws(NetworkingError) {
        self = try Self.convert(value, path: "")
    }

    /// Converts an `Encodable` value through its JSON form, so the encoder's strategies (dates,
    /// keys, data, non-conforming floats) apply. A number whose digits a `Double` cannot hold (a
    /// `Decimal` property, say) becomes ``decimal(_:)``.
    ///
    /// - Parameter encoder: the encoder to use. Default: a new `JSONEncoder`.
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` with the `EncodingError` as
    ///   ``NetworkingError/underlyingError`` (for example for a `Double.nan`).
    public init(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws(NetworkingError) {
        let data: Data
        do {
            data = try encoder.encode(value)
        } catch {
            throw NetworkingError(
                .requestSerializationFailed, "\(type(of: value)) could not be encoded as JSON", underlyingError: error
            )
        }
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[Self.keepsExactDecimals] = true
            self = try decoder.decode(JSONValue.self, from: data)
        } catch {
            throw NetworkingError(
                .requestSerializationFailed, "the JSON form of \(type(of: value)) could not be read back", underlyingError: error
            )
        }
    }

    /// The value as a Foundation object tree (`String`, `NSNumber`-bridgeable numbers, `Bool`,
    /// `NSNull`, `[Any]`, `[String: Any]`), as `JSONSerialization` would return it.
    public var foundationObject: Any {
        switch self {
        case .string(let value): value
        case .int(let value): value
        case .double(let value): value
        case .decimal(let value): NSDecimalNumber(decimal: value)
        case .bool(let value): value
        case .null: NSNull()
        case .array(let value): value.map(\.foundationObject)
        case .object(let value): value.mapValues(\.foundationObject)
        }
    }

    private static func convert(_ value: Any, path: String) throws(NetworkingError) -> JSONValue {
        // NSNumber first, by its dynamic type only: on Apple platforms `as? Bool` would also match
        // any NSNumber, and `as? NSNumber` any Swift number.
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            return convert(number)
        }
        switch value {
        case let value as JSONValue: return value
        case let value as String: return .string(value)
        case let value as Substring: return .string(String(value))
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(value)
        case let value as Int8: return .int(Int(value))
        case let value as Int16: return .int(Int(value))
        case let value as Int32: return .int(Int(value))
        case let value as Int64: return .int(Int(value))
        case let value as UInt8: return .int(Int(value))
        case let value as UInt16: return .int(Int(value))
        case let value as UInt32: return .int(Int(value))
        case let value as UInt: return Int(exactly: value).map(JSONValue.int) ?? .double(Double(value))
        case let value as UInt64: return Int(exactly: value).map(JSONValue.int) ?? .double(Double(value))
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as Decimal: return .decimal(value)
        case is NSNull: return .null
        case let value as [Any]:
            var array: [JSONValue] = []
            array.reserveCapacity(value.count)
            for (index, element) in value.enumerated() {
                array.append(try convert(element, path: "\(path)[\(index)]"))
            }
            return .array(array)
        case let value as [String: Any]:
            var object: [String: JSONValue] = [:]
            for (key, element) in value {
                object[key] = try convert(element, path: path.isEmpty ? key : "\(path).\(key)")
            }
            return .object(object)
        default:
            if let optional = value as? any OptionalProtocol {
                guard let wrapped = optional.wrappedValue else { return .null }
                return try convert(wrapped, path: path)
            }
            throw NetworkingError(
                .requestSerializationFailed,
                "a value of type \(type(of: value)) at \(path.isEmpty ? "the top level" : path) cannot be encoded as a parameter"
            )
        }
    }

    private static func convert(_ number: NSNumber) -> JSONValue {
        if type(of: number) == type(of: NSNumber(value: true)) { return .bool(number.boolValue) }
        if let decimal = number as? NSDecimalNumber { return .decimal(decimal.decimalValue) }
        switch String(cString: number.objCType) {
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            return Int(exactly: number.uint64Value).map(JSONValue.int) ?? .double(number.doubleValue)
        default: return .int(number.intValue)
        }
    }
}

/// Lets the untyped conversion look inside an `Optional` stored as `Any`.
private protocol OptionalProtocol {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalProtocol {
    fileprivate var wrappedValue: Any? { self.map { $0 as Any } }
}
