import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Multipart forms through the client (AFNetworking's
/// `POST:parameters:headers:constructingBodyWithBlock:progress:success:failure:`): relative to
/// ``HTTPClient/baseURL``, with the default headers, the timeout and a validated, serialized
/// response. The call's `parameters` become text fields first (named as a URL-encoded form would
/// name them, in the style of the client's ``URLEncodedRequestSerializer`` when it has one), then
/// `constructingBody` adds parts. File and stream parts are read from disk while the body is
/// encoded or sent (see ``MultipartEncoding``).
///
/// ```swift
/// let reply = try await client.post("photos", parameters: ["album": "2024", "public": true], as: Reply.self) { form in
///     try form.append(fileAt: photoURL, name: "photo")
///     form.append(captionData, name: "caption")
/// }
/// ```
///
/// The awaiting forms suspend until the response is serialized; cancelling the calling task cancels
/// the encoding or the transfer and throws ``NetworkingError/Kind/cancelled``; a temporary file is
/// always deleted.
extension HTTPClient {
    /// Posts a multipart form and returns what `serializer` makes of the response.
    ///
    /// - Parameters:
    ///   - encoding: default ``MultipartEncoding/default`` (in memory up to 10 MiB, else a temporary file).
    ///   - constructingBody: adds parts after the parameters' fields.
    /// - Throws: request building errors, the builder's error (nothing is sent; an error that is not
    ///   a ``NetworkingError`` becomes ``NetworkingError/Kind/requestSerializationFailed`` with it as
    ///   ``NetworkingError/underlyingError``), the transfer's and the serializer's errors.
    @discardableResult
    public func post<Serializer: ResponseSerializer>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        encoding: MultipartEncoding = .default, serializer: Serializer,
        constructingBody: (inout MultipartFormData) throws -> Void
    ) async throws(NetworkingError) -> Serializer.Output {
        try await collectingWholeBodies.multipartTask(
            .post, url, parameters: parameters, headers: headers, encoding: encoding, serializer: serializer,
            constructingBody: constructingBody
        ).value
    }

    /// Posts a multipart form and decodes the JSON response as `type` under the client's
    /// ``validation``. See ``post(_:parameters:headers:encoding:serializer:constructingBody:)``.
    @discardableResult
    public func post<Value: Decodable & Sendable>(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        encoding: MultipartEncoding = .default, as type: Value.Type, decoder: JSONDecoder? = nil,
        constructingBody: (inout MultipartFormData) throws -> Void
    ) async throws(NetworkingError) -> Value {
        try await collectingWholeBodies.multipartTask(
            .post, url, parameters: parameters, headers: headers, encoding: encoding,
            serializer: decodingSerializer(type, decoder), constructingBody: constructingBody
        ).value
    }

    /// Posts a multipart form and returns what the client-wide ``responseSerializer`` makes of the
    /// response, under the client's ``validation``. See
    /// ``post(_:parameters:headers:encoding:serializer:constructingBody:)``.
    @discardableResult
    public func post(
        _ url: some URLConvertible, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        encoding: MultipartEncoding = .default, constructingBody: (inout MultipartFormData) throws -> Void
    ) async throws(NetworkingError) -> any Sendable {
        try await collectingWholeBodies.multipartTask(
            .post, url, parameters: parameters, headers: headers, encoding: encoding, serializer: clientSerializer,
            constructingBody: constructingBody
        ).value
    }

    /// Starts a multipart upload with `method` (usually `POST` or `PUT`) and returns an
    /// ``HTTPTask`` whose events report upload progress against the body's length. Suspends while
    /// the body is encoded (in memory or to a temporary file) and until the transfer is registered.
    public func multipartTask<Serializer: ResponseSerializer>(
        _ method: HTTPMethod = .post, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:], encoding: MultipartEncoding = .default, serializer: Serializer,
        constructingBody: (inout MultipartFormData) throws -> Void
    ) async throws(NetworkingError) -> HTTPTask<Serializer.Output> {
        let request = try makeRequest(method, url, headers: headers)
        var form = MultipartFormData()
        do {
            if let parameters {
                let style = (requestSerializer as? URLEncodedRequestSerializer)?.style ?? .default
                try form.append(parameters: parameters, style: style)
            }
            try constructingBody(&form)
        } catch let error as NetworkingError {
            throw error.adding(request: request)
        } catch {
            throw NetworkingError(
                .requestSerializationFailed, "the multipart body builder threw", request: request, underlyingError: error
            )
        }
        let (options, hold) = transferOptions.holdingCompletion()
        let transfer = try await manager.uploadTask(with: request, multipart: form, encoding: encoding, options: options)
        return HTTPTask(
            transfer: transfer, request: transfer.originalRequest, hold: hold,
            finish: Self.serializing(serializer, transfer.originalRequest)
        )
    }

    /// Starts a multipart upload; its value is the JSON response decoded as `type`. See
    /// ``multipartTask(_:_:parameters:headers:encoding:serializer:constructingBody:)``.
    public func multipartTask<Value: Decodable & Sendable>(
        _ method: HTTPMethod = .post, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:], encoding: MultipartEncoding = .default, as type: Value.Type, decoder: JSONDecoder? = nil,
        constructingBody: (inout MultipartFormData) throws -> Void
    ) async throws(NetworkingError) -> HTTPTask<Value> {
        try await multipartTask(
            method, url, parameters: parameters, headers: headers, encoding: encoding,
            serializer: decodingSerializer(type, decoder), constructingBody: constructingBody
        )
    }
}
