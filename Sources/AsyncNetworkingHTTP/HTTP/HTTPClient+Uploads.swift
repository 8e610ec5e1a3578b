import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body for ``HTTPClient/upload(_:to:method:headers:serializer:)``: bytes, a file or a
/// stream (AFNetworking's `uploadTaskWithRequest:fromData:`, `fromFile:` and
/// `uploadTaskWithStreamedRequest:`).
public enum UploadBody: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A file, read from disk as it is sent (never whole into memory).
    case file(URL)
    /// A stream: `make` makes a new, unopened stream of the whole body (see
    /// ``SessionManager/upload(for:fromStream:length:mode:options:)``).
    case stream(length: Int64?, mode: StreamedUploadMode, make: @Sendable () -> InputStream)

    /// A stream of `length` bytes (when known), spooled to a temporary file first by default.
    public static func stream(
        length: Int64? = nil, mode: StreamedUploadMode = .spooled, _ make: @escaping @Sendable () -> InputStream
    ) -> UploadBody {
        .stream(length: length, mode: mode, make: make)
    }
}

/// Uploads through the client: relative to ``HTTPClient/baseURL``, with the default headers, the
/// timeout, and a validated, serialized response.
///
/// ```swift
/// let receipt = try await client.upload(.file(video), to: "videos", as: Receipt.self)
/// let task = try await client.uploadTask(.data(bytes), to: "blobs", method: .put, as: Receipt.self)
/// ```
///
/// The awaiting forms suspend until the response is serialized; cancelling the calling task cancels
/// the transfer and throws ``NetworkingError/Kind/cancelled``.
extension HTTPClient {
    /// Uploads `body` to `url` and returns what `serializer` makes of the response.
    ///
    /// - Parameter method: default `POST`.
    /// - Throws: request building errors, ``NetworkingError/Kind/fileReadFailed`` for a missing
    ///   file (before anything is sent), the transfer's and the serializer's errors.
    @discardableResult
    public func upload<Serializer: ResponseSerializer>(
        _ body: UploadBody, to url: some URLConvertible, method: HTTPMethod = .post,
        headers: HTTPHeaders = [:], serializer: Serializer
    ) async throws(NetworkingError) -> Serializer.Output {
        try await collectingWholeBodies.uploadTask(body, to: url, method: method, headers: headers, serializer: serializer).value
    }

    /// Uploads `body` to `url` and decodes the JSON response as `type`, under the client's
    /// ``validation``. See ``upload(_:to:method:headers:serializer:)``.
    @discardableResult
    public func upload<Value: Decodable & Sendable>(
        _ body: UploadBody, to url: some URLConvertible, method: HTTPMethod = .post,
        headers: HTTPHeaders = [:], as type: Value.Type, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> Value {
        try await collectingWholeBodies.uploadTask(
            body, to: url, method: method, headers: headers, serializer: decodingSerializer(type, decoder)
        ).value
    }

    /// Uploads `body` to `url` and returns what the client-wide ``responseSerializer`` makes of the
    /// response, under the client's ``validation``. See ``upload(_:to:method:headers:serializer:)``.
    @discardableResult
    public func upload(
        _ body: UploadBody, to url: some URLConvertible, method: HTTPMethod = .post, headers: HTTPHeaders = [:]
    ) async throws(NetworkingError) -> any Sendable {
        try await collectingWholeBodies.uploadTask(body, to: url, method: method, headers: headers, serializer: clientSerializer).value
    }

    /// Starts uploading `body` and returns an ``HTTPTask`` whose events report upload progress.
    /// Suspends while a stream body is spooled (``StreamedUploadMode/spooled``) and until the
    /// transfer is registered.
    public func uploadTask<Serializer: ResponseSerializer>(
        _ body: UploadBody, to url: some URLConvertible, method: HTTPMethod = .post,
        headers: HTTPHeaders = [:], serializer: Serializer
    ) async throws(NetworkingError) -> HTTPTask<Serializer.Output> {
        let request = try makeRequest(method, url, headers: headers)
        let transfer: TransferHandle
        let (options, hold) = transferOptions.holdingCompletion()
        switch body {
        case .data(let data):
            transfer = try await manager.uploadTask(with: request, from: data, options: options)
        case .file(let file):
            transfer = try await manager.uploadTask(with: request, fromFile: file, options: options)
        case .stream(let length, let mode, let make):
            transfer = try await manager.uploadTask(with: request, fromStream: make, length: length, mode: mode, options: options)
        }
        return HTTPTask(transfer: transfer, request: request, hold: hold, finish: Self.serializing(serializer, request))
    }

    /// Starts uploading `body`; its value is the JSON response decoded as `type`. See
    /// ``uploadTask(_:to:method:headers:serializer:)``.
    public func uploadTask<Value: Decodable & Sendable>(
        _ body: UploadBody, to url: some URLConvertible, method: HTTPMethod = .post,
        headers: HTTPHeaders = [:], as type: Value.Type, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> HTTPTask<Value> {
        try await uploadTask(body, to: url, method: method, headers: headers, serializer: decodingSerializer(type, decoder))
    }
}
