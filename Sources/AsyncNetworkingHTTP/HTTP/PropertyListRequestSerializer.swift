import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AFNetworking's `AFPropertyListRequestSerializer`: parameters as an `application/x-plist` body
/// (XML by default), except for `GET`, `HEAD` and `DELETE`, whose parameters are URL-encoded into
/// the query string.
///
/// ``Parameters/encodable(_:)`` values are encoded with a `PropertyListEncoder`. Property lists have
/// no `null`: a ``JSONValue/null`` anywhere fails with ``NetworkingError/Kind/requestSerializationFailed``.
public struct PropertyListRequestSerializer: RequestSerializer, Hashable {
    /// The property list format. Default `.xml` (AFNetworking's default); `.binary` is also supported.
    public var format: PropertyListSerialization.PropertyListFormat
    /// The methods whose parameters go in the query string instead of the body. Default
    /// ``HTTPMethod/encodingParametersInURL`` (`GET`, `HEAD`, `DELETE`).
    public var methodsEncodingParametersInURL: Set<HTTPMethod>

    /// Creates a serializer; every argument has the default described on its property.
    public init(
        format: PropertyListSerialization.PropertyListFormat = .xml,
        methodsEncodingParametersInURL: Set<HTTPMethod> = HTTPMethod.encodingParametersInURL
    ) {
        self.format = format
        self.methodsEncodingParametersInURL = methodsEncodingParametersInURL
    }

    /// Writes `parameters` as the property-list body (setting `Content-Type: application/x-plist`
    /// unless the request has a content type), or into the query for ``methodsEncodingParametersInURL``.
    public func serialize(_ request: URLRequest, with parameters: Parameters?) throws(NetworkingError) -> URLRequest {
        try URLEncodedRequestSerializer.serializeBody(
            request, with: parameters, methodsEncodingParametersInURL: methodsEncodingParametersInURL,
            contentType: "application/x-plist"
        ) { parameters throws(NetworkingError) in
            do throws(NetworkingError) { return try encodeBody(parameters) } catch { throw error.adding(request: request) }
        }
    }

    private func encodeBody(_ parameters: Parameters) throws(NetworkingError) -> Data {
        if case .encodable(let value) = parameters {
            let encoder = PropertyListEncoder()
            encoder.outputFormat = format
            do {
                return try encoder.encode(value)
            } catch {
                throw NetworkingError(
                    .requestSerializationFailed, "\(type(of: value)) could not be encoded as a property list",
                    underlyingError: error
                )
            }
        }
        let values = try parameters.values()
        if let path = Self.firstNull(in: .object(values), path: "") {
            throw NetworkingError(.requestSerializationFailed, "property lists cannot hold null (at \(path))")
        }
        do {
            let plist = Self.withDecimalsAsDoubles(.object(values)).foundationObject
            return try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
        } catch {
            throw NetworkingError(
                .requestSerializationFailed, "the parameters could not be encoded as a property list", underlyingError: error
            )
        }
    }

    /// Property lists have only binary reals: a ``JSONValue/decimal(_:)`` becomes its nearest `Double`.
    private static func withDecimalsAsDoubles(_ value: JSONValue) -> JSONValue {
        switch value {
        case .decimal(let number): .double(JSONValue.nearestDouble(to: number))
        case .array(let array): .array(array.map(withDecimalsAsDoubles))
        case .object(let object): .object(object.mapValues(withDecimalsAsDoubles))
        default: value
        }
    }

    private static func firstNull(in value: JSONValue, path: String) -> String? {
        switch value {
        case .null: return path.isEmpty ? "the top level" : path
        case .array(let array):
            for (index, element) in array.enumerated() {
                if let found = firstNull(in: element, path: "\(path)[\(index)]") { return found }
            }
        case .object(let object):
            for key in object.keys.sorted() {
                if let found = firstNull(in: object[key]!, path: path.isEmpty ? key : "\(path).\(key)") { return found }
            }
        default: break
        }
        return nil
    }
}
