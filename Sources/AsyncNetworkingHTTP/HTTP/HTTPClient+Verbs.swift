import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The verbs: `GET`, `HEAD`, `POST`, `PUT`, `PATCH`, `DELETE`, each awaiting a decoded value or a
/// serializer's output. For a progress loop on any verb, use ``dataTask(_:_:parameters:headers:)``;
/// for the response and metrics along with the value, ``request(_:_:parameters:headers:serializer:)``.
///
/// Every verb suspends until the whole body has arrived and been serialized. The results of the
/// side-effecting verbs (`POST`, `PUT`, `PATCH`, `DELETE`) and `HEAD` may be discarded. Cancelling the calling
/// task cancels the transfer and throws ``NetworkingError/Kind/cancelled``. Failures after a
/// response arrived carry it and its body (``NetworkingError/response``, ``NetworkingError/body``).
extension HTTPClient {
    /// Sends a `GET` to `url` (resolved against ``baseURL``) and decodes the JSON body as `type`.
    /// Parameters go in the query string (with the default serializers).
    ///
    /// - Parameters:
    ///   - url: a path relative to ``baseURL``, or an absolute URL.
    ///   - parameters: encoded by ``requestSerializer``. Default `nil`.
    ///   - headers: added to (and overriding) ``defaultHeaders``. Default none.
    ///   - type: the type to decode; ``Empty`` for no body. Default: inferred.
    ///   - decoder: the decoder. Default: the client's ``decoder``.
    /// - Throws: ``NetworkingError``; the status must be in `200..<300` and the content type JSON
    ///   (see ``DecodableResponseSerializer``), as changed by the client's ``validation``.
    public func get<Value: Decodable & Sendable>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> Value {
        try await request(.get, url, parameters: parameters, headers: headers, serializer: decodingSerializer(type, decoder)).value
    }

    /// Sends a `GET` to `url` and returns what `serializer` makes of the response.
    /// See ``get(_:parameters:headers:as:decoder:)``.
    public func get<Serializer: ResponseSerializer>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        serializer: Serializer
    ) async throws(NetworkingError) -> Serializer.Output {
        try await request(.get, url, parameters: parameters, headers: headers, serializer: serializer).value
    }

    /// Sends a `HEAD` to `url` (resolved against ``baseURL``) and returns the response head.
    /// Parameters go in the query string (with the default serializers).
    ///
    /// - Throws: ``NetworkingError``; the status must be in `200..<300`.
    @discardableResult
    public func head(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:]
    ) async throws(NetworkingError) -> HTTPURLResponse {
        try await request(.head, url, parameters: parameters, headers: headers, serializer: validated(DataResponseSerializer())).response
    }

    /// Sends a `HEAD` to `url` and returns what `serializer` makes of the (empty) response.
    @discardableResult
    public func head<Serializer: ResponseSerializer>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        serializer: Serializer
    ) async throws(NetworkingError) -> Serializer.Output {
        try await request(.head, url, parameters: parameters, headers: headers, serializer: serializer).value
    }

    /// Sends a `POST` to `url` (resolved against ``baseURL``) and decodes the JSON body as `type`.
    /// Parameters go in the body, encoded by ``requestSerializer``.
    ///
    /// - Parameters:
    ///   - url: a path relative to ``baseURL``, or an absolute URL.
    ///   - parameters: encoded by ``requestSerializer``. Default `nil`.
    ///   - headers: added to (and overriding) ``defaultHeaders``. Default none.
    ///   - type: the type to decode; ``Empty`` for no body. Default: inferred.
    ///   - decoder: the decoder. Default: the client's ``decoder``.
    /// - Throws: ``NetworkingError``; the status must be in `200..<300` and the content type JSON
    ///   (see ``DecodableResponseSerializer``), as changed by the client's ``validation``.
    @discardableResult
    public func post<Value: Decodable & Sendable>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> Value {
        try await request(.post, url, parameters: parameters, headers: headers, serializer: decodingSerializer(type, decoder)).value
    }

    /// Sends a `POST` to `url` and returns what `serializer` makes of the response.
    /// See ``post(_:parameters:headers:as:decoder:)``.
    @discardableResult
    public func post<Serializer: ResponseSerializer>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        serializer: Serializer
    ) async throws(NetworkingError) -> Serializer.Output {
        try await request(.post, url, parameters: parameters, headers: headers, serializer: serializer).value
    }

    /// Sends a `PUT` to `url` (resolved against ``baseURL``) and decodes the JSON body as `type`.
    /// Parameters go in the body, encoded by ``requestSerializer``.
    ///
    /// - Parameters:
    ///   - url: a path relative to ``baseURL``, or an absolute URL.
    ///   - parameters: encoded by ``requestSerializer``. Default `nil`.
    ///   - headers: added to (and overriding) ``defaultHeaders``. Default none.
    ///   - type: the type to decode; ``Empty`` for no body. Default: inferred.
    ///   - decoder: the decoder. Default: the client's ``decoder``.
    /// - Throws: ``NetworkingError``; the status must be in `200..<300` and the content type JSON
    ///   (see ``DecodableResponseSerializer``), as changed by the client's ``validation``.
    @discardableResult
    public func put<Value: Decodable & Sendable>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> Value {
        try await request(.put, url, parameters: parameters, headers: headers, serializer: decodingSerializer(type, decoder)).value
    }

    /// Sends a `PUT` to `url` and returns what `serializer` makes of the response.
    /// See ``put(_:parameters:headers:as:decoder:)``.
    @discardableResult
    public func put<Serializer: ResponseSerializer>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        serializer: Serializer
    ) async throws(NetworkingError) -> Serializer.Output {
        try await request(.put, url, parameters: parameters, headers: headers, serializer: serializer).value
    }

    /// Sends a `PATCH` to `url` (resolved against ``baseURL``) and decodes the JSON body as `type`.
    /// Parameters go in the body, encoded by ``requestSerializer``.
    ///
    /// - Parameters:
    ///   - url: a path relative to ``baseURL``, or an absolute URL.
    ///   - parameters: encoded by ``requestSerializer``. Default `nil`.
    ///   - headers: added to (and overriding) ``defaultHeaders``. Default none.
    ///   - type: the type to decode; ``Empty`` for no body. Default: inferred.
    ///   - decoder: the decoder. Default: the client's ``decoder``.
    /// - Throws: ``NetworkingError``; the status must be in `200..<300` and the content type JSON
    ///   (see ``DecodableResponseSerializer``), as changed by the client's ``validation``.
    @discardableResult
    public func patch<Value: Decodable & Sendable>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> Value {
        try await request(.patch, url, parameters: parameters, headers: headers, serializer: decodingSerializer(type, decoder)).value
    }

    /// Sends a `PATCH` to `url` and returns what `serializer` makes of the response.
    /// See ``patch(_:parameters:headers:as:decoder:)``.
    @discardableResult
    public func patch<Serializer: ResponseSerializer>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        serializer: Serializer
    ) async throws(NetworkingError) -> Serializer.Output {
        try await request(.patch, url, parameters: parameters, headers: headers, serializer: serializer).value
    }

    /// Sends a `DELETE` to `url` (resolved against ``baseURL``) and decodes the JSON body as `type`.
    /// Parameters go in the query string (with the default serializers, as AFNetworking).
    ///
    /// - Parameters:
    ///   - url: a path relative to ``baseURL``, or an absolute URL.
    ///   - parameters: encoded by ``requestSerializer``. Default `nil`.
    ///   - headers: added to (and overriding) ``defaultHeaders``. Default none.
    ///   - type: the type to decode; ``Empty`` for no body. Default: inferred.
    ///   - decoder: the decoder. Default: the client's ``decoder``.
    /// - Throws: ``NetworkingError``; the status must be in `200..<300` and the content type JSON
    ///   (see ``DecodableResponseSerializer``), as changed by the client's ``validation``.
    @discardableResult
    public func delete<Value: Decodable & Sendable>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> Value {
        try await request(.delete, url, parameters: parameters, headers: headers, serializer: decodingSerializer(type, decoder)).value
    }

    /// Sends a `DELETE` to `url` and returns what `serializer` makes of the response.
    /// See ``delete(_:parameters:headers:as:decoder:)``.
    @discardableResult
    public func delete<Serializer: ResponseSerializer>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        serializer: Serializer
    ) async throws(NetworkingError) -> Serializer.Output {
        try await request(.delete, url, parameters: parameters, headers: headers, serializer: serializer).value
    }
}
