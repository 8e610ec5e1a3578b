import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Request parameters as multipart form fields (the `parameters:` of AFNetworking's
/// `multipartFormRequestWithMethod:`).
extension MultipartFormData {
    /// Appends `parameters` as text fields, in the order and with the names a URL-encoded form
    /// would use (`style`: sorted keys, `a[b]`, `tags[]`, Booleans as `1`/`0`, dates as ISO 8601 by
    /// default). A `Data` value in an ``Parameters/untyped(_:)`` dictionary becomes its bytes
    /// as they are; `null` an empty field.
    ///
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` for a value that cannot be a
    ///   parameter.
    public mutating func append(parameters: Parameters, style: URLEncoding.Style = .default) throws(NetworkingError) {
        for (name, value) in try Self.fields(of: parameters, style: style) {
            parts.append(Part(name: name, filename: nil, mimeType: nil, content: .data(value)))
        }
    }

    static func fields(of parameters: Parameters, style: URLEncoding.Style) throws(NetworkingError) -> [(String, Data)] {
        if case .untyped(let dictionary) = parameters {
            var fields: [(String, Data)] = []
            for key in dictionary.keys.sorted() {
                fields += try untypedFields(dictionary[key]!, key: key, style: style)
            }
            return fields
        }
        return try parameters.pairs(style: style).flatMap { key, value in
            URLEncoding.fields(key: key, value: value, style: style).map { ($0.0, Data(($0.1 ?? "").utf8)) }
        }
    }

    private static func untypedFields(_ value: Any, key: String, style: URLEncoding.Style) throws(NetworkingError) -> [(String, Data)] {
        switch value {
        case let data as Data:
            return [(key, data)]
        case let object as [String: Any]:
            var fields: [(String, Data)] = []
            for nested in object.keys.sorted() {
                fields += try untypedFields(object[nested]!, key: "\(key)[\(nested)]", style: style)
            }
            return fields
        case let array as [Any] where array.contains(where: { $0 is Data || $0 is [String: Any] || $0 is [Any] }):
            var fields: [(String, Data)] = []
            for (index, element) in array.enumerated() {
                let name = switch style.arrayEncoding {
                case .brackets: "\(key)[]"
                case .noBrackets: key
                case .indexed: "\(key)[\(index)]"
                }
                fields += try untypedFields(element, key: name, style: style)
            }
            return fields
        default:
            let converted = try JSONValue(converting: style.replacingDates(in: value))
            return URLEncoding.fields(key: key, value: converted, style: style).map { ($0.0, Data(($0.1 ?? "").utf8)) }
        }
    }
}
