import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Stream parts, parts with custom headers, and request parameters as form fields
/// (AFNetworking's `appendPartWithInputStream:…`, `appendPartWithHeaders:body:` and the
/// `parameters:` of `multipartFormRequestWithMethod:`).
extension MultipartFormData {
    /// Appends a part read from a stream of exactly `length` bytes while the body is encoded or
    /// sent (AFNetworking's `appendPartWithInputStream:name:fileName:length:mimeType:`).
    ///
    /// - Parameters:
    ///   - makeStream: makes a new, unopened stream of the part; called each time the body is
    ///     read (once, or again to re-send it after a 307/308). Its reads should not wait (memory,
    ///     local files): see ``MultipartEncoding/chunked``.
    ///   - length: the exact byte count, for the body's `Content-Length`.
    ///   - filename: makes it a file part. Default `nil`.
    ///   - mimeType: the part's `Content-Type`. Default: inferred from `filename` as for data parts.
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` for a negative `length`. A
    ///   stream that ends early or runs long fails the upload with the same kind, before the
    ///   server can accept a wrong body.
    public mutating func append(
        stream makeStream: @escaping @Sendable () -> InputStream, length: Int64, name: String,
        filename: String? = nil, mimeType: String? = nil
    ) throws(NetworkingError) {
        guard length >= 0 else {
            throw NetworkingError(.requestSerializationFailed, "a multipart stream part cannot have a negative length (\(length))")
        }
        let type = mimeType ?? filename.map { MIMEType.forPathExtension(($0 as NSString).pathExtension) }
        parts.append(Part(name: name, filename: filename, mimeType: type, content: .stream(length: length, make: makeStream)))
    }

    /// Appends a part whose headers are exactly `headers` (AFNetworking's
    /// `appendPartWithHeaders:body:`), for example a `Content-Disposition` with extra parameters or
    /// a `Content-ID`. CR and LF are removed from names and values.
    public mutating func append(_ body: Data, headers: HTTPHeaders) {
        parts.append(Part(name: "", filename: nil, mimeType: nil, content: .data(body), headers: headers))
    }

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
