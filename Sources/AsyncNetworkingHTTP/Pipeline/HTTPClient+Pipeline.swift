import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sending ``Request`` values through the client's ``pipeline``.
///
/// Each `send` suspends until the response is decoded or the request has failed for good:
/// adapters run before every attempt, a refused credential is renewed once, failures go to the
/// retry policy, and every step reaches the monitors. Everything runs on the caller's task:
/// cancelling it cancels the attempt in flight, a backoff sleep or a wait for a credential at
/// once, and `send` throws ``NetworkingError/Kind/cancelled``.
extension HTTPClient {
    /// Sends `request` and decodes its JSON body as `Value` with `decoder`
    /// (``DecodableResponseSerializer``: status `200..<300`, JSON content types; ``Empty`` for none).
    ///
    /// - Parameter progress: called with each attempt's upload and download progress. Default none.
    /// - Throws: ``NetworkingError``: the last attempt's failure, or
    ///   ``NetworkingError/Kind/cancelled``; request-building errors before anything is sent.
    public func send<Value: Decodable & Sendable>(
        _ request: Request<Value>, decoder: JSONDecoder = JSONDecoder(),
        progress: (@Sendable (RequestProgress) -> Void)? = nil
    ) async throws(NetworkingError) -> HTTPResponse<Value> {
        try await send(request, serializer: DecodableResponseSerializer(Value.self, decoder: decoder), progress: progress)
    }

    /// Sends `request` and returns its body as it arrived (status `200..<300`).
    /// See ``send(_:decoder:progress:)``.
    public func send(
        _ request: Request<Data>, progress: (@Sendable (RequestProgress) -> Void)? = nil
    ) async throws(NetworkingError) -> HTTPResponse<Data> {
        try await send(request, serializer: DataResponseSerializer(), progress: progress)
    }

    /// Sends `request` and decodes its body as text (``StringResponseSerializer``).
    /// See ``send(_:decoder:progress:)``.
    public func send(
        _ request: Request<String>, progress: (@Sendable (RequestProgress) -> Void)? = nil
    ) async throws(NetworkingError) -> HTTPResponse<String> {
        try await send(request, serializer: StringResponseSerializer(), progress: progress)
    }

    /// Sends a request whose answer has no useful body: only the status is checked (`200..<300`).
    /// See ``send(_:decoder:progress:)``.
    @discardableResult
    public func send(
        _ request: Request<Void>, progress: (@Sendable (RequestProgress) -> Void)? = nil
    ) async throws(NetworkingError) -> HTTPResponse<Void> {
        try await send(request.decoding(as: Data.self), progress: progress).map { _ in () }
    }

    /// Sends `request` and makes its value with `serializer`. See ``send(_:decoder:progress:)``.
    public func send<Serializer: ResponseSerializer>(
        _ request: Request<Serializer.Output>, serializer: Serializer,
        progress: (@Sendable (RequestProgress) -> Void)? = nil
    ) async throws(NetworkingError) -> HTTPResponse<Serializer.Output> {
        try await runPipeline(request, progress: progress) { data, response, sent throws(NetworkingError) in
            try serializer.serialize(data, response: response, request: sent)
        }
    }

    /// The `URLRequest` a ``Request`` starts as, before adapters: the target resolved against
    /// ``baseURL`` with the query appended, the method, ``defaultHeaders`` overridden by the
    /// request's headers, the body and its `Content-Type` (unless the request sets one), the
    /// request's timeout or ``timeoutInterval``, and ``cachePolicy``.
    ///
    /// - Throws: ``NetworkingError/Kind/invalidURL``, ``NetworkingError/Kind/unsupportedScheme(_:)``
    ///   or ``NetworkingError/Kind/requestSerializationFailed`` (a body that could not be encoded).
    public func urlRequest<Value>(for request: Request<Value>) throws(NetworkingError) -> URLRequest {
        var timed = self
        if let timeout = request.timeoutInterval { timed.timeoutInterval = timeout }
        return try RequestBuilder(
            baseURL: baseURL, defaultHeaders: defaultHeaders,
            timeoutInterval: timed.effectiveTimeoutInterval, cachePolicy: cachePolicy
        ).build(request)
    }

    /// `request` as a `curl` command, as this client would build it before adapters (so without
    /// what adapters add, such as a credential). Redacted unless `redacted` is `false`: see
    /// `URLRequest.cURLDescription(redacted:)`. A request that cannot be built says why.
    public func cURLDescription<Value>(for request: Request<Value>, redacted: Bool = true) -> String {
        do {
            return try urlRequest(for: request).cURLDescription(redacted: redacted)
        } catch {
            return "# cannot build the request: \(error)"
        }
    }
}

extension Request {
    /// This request as a `curl` command, resolved against `baseURL` (default none: the target
    /// must be absolute) with no default headers. Redacted unless `redacted` is `false`.
    public func cURLDescription(baseURL: URL? = nil, redacted: Bool = true) -> String {
        let builder = RequestBuilder(
            baseURL: baseURL.map(HTTPClient.normalizedBaseURL), defaultHeaders: [:],
            timeoutInterval: timeoutInterval ?? 60, cachePolicy: .useProtocolCachePolicy
        )
        do {
            return try builder.build(self).cURLDescription(redacted: redacted)
        } catch {
            return "# cannot build the request: \(error)"
        }
    }
}
