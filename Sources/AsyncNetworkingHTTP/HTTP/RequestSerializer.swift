import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns a request's ``Parameters`` into a query string or a body (AFNetworking's
/// `AFURLRequestSerialization`).
///
/// The client builds the request first (URL, method, headers, timeout, cache policy), then hands it
/// to its serializer. Serializers are value types: configure one by changing its properties, no
/// subclassing. Write your own by conforming to this protocol.
public protocol RequestSerializer: Sendable {
    /// Returns `request` with `parameters` encoded into it. `parameters` is `nil` when the call had none.
    ///
    /// Set `Content-Type` only when the request has none, so a caller's header wins.
    ///
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` when a value cannot be encoded
    ///   (the request is then never sent).
    func serialize(_ request: URLRequest, with parameters: Parameters?) throws(NetworkingError) -> URLRequest
}

/// AFNetworking's default `AFHTTPRequestSerializer`: parameters URL-encoded into the query string for
/// `GET`, `HEAD` and `DELETE`, and into an `application/x-www-form-urlencoded` body otherwise.
///
/// Nested values are written as `a[b]=c` and `a[]=1` with sorted keys and RFC 3986 escaping; see
/// ``URLEncoding`` for the exact rules.
public struct URLEncodedRequestSerializer: RequestSerializer, Hashable {
    /// The methods whose parameters go in the query string. Default ``HTTPMethod/encodingParametersInURL``
    /// (`GET`, `HEAD`, `DELETE`).
    public var methodsEncodingParametersInURL: Set<HTTPMethod>
    /// How arrays, Booleans, dates, spaces and key order are written. Default
    /// ``URLEncoding/Style/default`` (AFNetworking's).
    public var style: URLEncoding.Style
    /// How Booleans are written (``URLEncoding/Style/boolEncoding``). Default
    /// ``URLEncoding/BoolEncoding/numeric`` (`1`/`0`).
    public var boolEncoding: URLEncoding.BoolEncoding {
        get { style.boolEncoding }
        set { style.boolEncoding = newValue }
    }

    /// Creates a serializer; every argument has the default described on its property.
    public init(
        methodsEncodingParametersInURL: Set<HTTPMethod> = HTTPMethod.encodingParametersInURL,
        boolEncoding: URLEncoding.BoolEncoding = .numeric
    ) {
        self.methodsEncodingParametersInURL = methodsEncodingParametersInURL
        self.style = URLEncoding.Style(boolEncoding: boolEncoding)
    }

    /// Creates a serializer writing parameters in `style`.
    public init(
        style: URLEncoding.Style,
        methodsEncodingParametersInURL: Set<HTTPMethod> = HTTPMethod.encodingParametersInURL
    ) {
        self.methodsEncodingParametersInURL = methodsEncodingParametersInURL
        self.style = style
    }

    /// Encodes `parameters` into the query (appended to any query the URL has) or into a form body.
    /// No parameters, or an empty dictionary, leaves the request as it is.
    public func serialize(_ request: URLRequest, with parameters: Parameters?) throws(NetworkingError) -> URLRequest {
        guard let parameters else { return request }
        let pairs: [(String, JSONValue)]
        do { pairs = try parameters.pairs(style: style) } catch { throw error.adding(request: request) }
        let query = URLEncoding.queryString(from: pairs, style: style)
        return try Self.encode(query, into: request, inURL: encodesInURL(request))
    }

    func encodesInURL(_ request: URLRequest) -> Bool {
        methodsEncodingParametersInURL.contains(HTTPMethod(request.httpMethod ?? "GET"))
    }

    /// What the body serializers (JSON, property list) share: `parameters` go into the query for
    /// `methodsEncodingParametersInURL`, else `encodeBody` makes the body, sent with `contentType`
    /// unless the request has a content type. No parameters leave the request as it is.
    static func serializeBody(
        _ request: URLRequest, with parameters: Parameters?, methodsEncodingParametersInURL: Set<HTTPMethod>,
        contentType: String, encodeBody: (Parameters) throws(NetworkingError) -> Data
    ) throws(NetworkingError) -> URLRequest {
        guard let parameters else { return request }
        let query = URLEncodedRequestSerializer(methodsEncodingParametersInURL: methodsEncodingParametersInURL)
        if query.encodesInURL(request) {
            return try query.serialize(request, with: parameters)
        }
        var request = request
        request.httpBody = try encodeBody(parameters)
        if request.value(forHTTPHeaderField: "Content-Type") == nil {
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// Puts an already-encoded query string in the URL or in a form body.
    static func encode(_ query: String, into request: URLRequest, inURL: Bool) throws(NetworkingError) -> URLRequest {
        var request = request
        if inURL {
            guard let url = request.url else { return request }
            guard let extended = URLEncoding.url(url, appendingQuery: query) else {
                throw NetworkingError(.requestSerializationFailed, "the query could not be added to the URL", request: request)
            }
            request.url = extended
        } else {
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            }
            request.httpBody = Data(query.utf8)
        }
        return request
    }
}
