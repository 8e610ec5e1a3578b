import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The general forms behind the verbs: any method, any serializer, the full ``HTTPResponse``, or
/// the transfer's handle.
extension HTTPClient {
    /// Sends a request built from the arguments and serializes the response with `serializer`.
    ///
    /// Suspends until the whole body has arrived and been serialized. Cancelling the calling task
    /// cancels the transfer and throws ``NetworkingError/Kind/cancelled``.
    ///
    /// - Throws: any ``NetworkingError``: request building (see ``makeRequest(_:_:parameters:headers:)``),
    ///   transport, ``TransferOptions/maxResponseBytes``, or the serializer's validation and decoding.
    ///   Errors after a response carry it and its body.
    public func request<Serializer: ResponseSerializer>(
        _ method: HTTPMethod, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:], serializer: Serializer
    ) async throws(NetworkingError) -> HTTPResponse<Serializer.Output> {
        try await send(makeRequest(method, url, parameters: parameters, headers: headers), serializer: serializer)
    }

    /// Sends a request and decodes its JSON body as `type` with `decoder`
    /// (``DecodableResponseSerializer``: status `200..<300`, JSON content types).
    /// See ``request(_:_:parameters:headers:serializer:)``.
    public func request<Value: Decodable & Sendable>(
        _ method: HTTPMethod, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:], as type: Value.Type, decoder: JSONDecoder? = nil
    ) async throws(NetworkingError) -> HTTPResponse<Value> {
        try await request(method, url, parameters: parameters, headers: headers, serializer: decodingSerializer(type, decoder))
    }

    /// Sends a request and returns the body as `Data`, after ``DataResponseSerializer`` validation
    /// (status `200..<300`). See ``request(_:_:parameters:headers:serializer:)``.
    public func request(
        _ method: HTTPMethod, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:]
    ) async throws(NetworkingError) -> HTTPResponse<Data> {
        try await request(method, url, parameters: parameters, headers: headers, serializer: validated(DataResponseSerializer()))
    }

    /// Sends a prepared request (from ``makeRequest(_:_:parameters:headers:)``, possibly modified)
    /// with ``transferOptions`` through the client's ``pipeline`` and ``cache``, like every awaiting
    /// call, and serializes the response.
    ///
    /// Suspends until the body has arrived and been serialized; cancelling the calling task cancels
    /// the transfer (or a retry's wait) and throws ``NetworkingError/Kind/cancelled``. Adapters and
    /// the authenticator run before each attempt; a `401` Basic challenge to a request without
    /// `Authorization` is answered once with ``credential`` when it is set; failures go to the
    /// retry policy — within ``deadline``, or without one within the request's `timeoutInterval`
    /// from the call's start (so a timed-out attempt is not retried); monitors see every step.
    /// An error after anything was sent carries ``NetworkingError/attemptCount``.
    public func send<Serializer: ResponseSerializer>(
        _ request: URLRequest, serializer: Serializer
    ) async throws(NetworkingError) -> HTTPResponse<Serializer.Output> {
        try await runPipeline(building: { () throws(NetworkingError) in request }, hooks: RequestHooks(), progress: nil) {
            data, response, sent throws(NetworkingError) in
            try serializer.serialize(data, response: response, request: sent)
        }
    }

    /// Starts a request built from the arguments and returns its handle at once, for a progress
    /// loop: `for try await event in handle.events { ... }` (upload progress for a body, the
    /// response, data chunks, download progress, completion).
    ///
    /// No response serializer runs and no status is validated: the events are the raw transfer.
    /// Serialize the collected body yourself if you need a value
    /// (`try serializer.serialize(body, response: response, request: handle.originalRequest)`).
    /// Uses ``transferOptions``. Dropping the handle and its events before the end cancels the transfer.
    ///
    /// - Throws: request building errors (see ``makeRequest(_:_:parameters:headers:)``) and
    ///   ``NetworkingError/Kind/sessionInvalidated``, before anything is sent.
    public func dataTask(
        _ method: HTTPMethod, _ url: some URLConvertible, parameters: Parameters? = nil,
        headers: HTTPHeaders = [:]
    ) async throws(NetworkingError) -> TransferHandle {
        let request = try makeRequest(method, url, parameters: parameters, headers: headers)
        return try await manager.dataTask(with: request, options: transferOptions)
    }

    /// Runs `request` to the end through its event stream and returns the body, the final response
    /// and the metrics. A failure carries the request, the response and the body received.
    /// `progress`, when given, sees the upload and download progress events as they pass.
    ///
    /// With ``TransferOptions/coalescesIdenticalRequests`` (and no `progress`), an identical `GET`
    /// in flight on the manager is joined. The shared transfer has a completion hold of its own,
    /// settled by the first caller that settles its own (``CompletionHold/forward(to:)``), so its
    /// session event carries what a caller saw; a failed transfer settles it with its error (what
    /// every caller then gets). It has no deadline: each caller's own deadline ends only its wait
    /// (``runAttempt(_:attempt:deadline:progress:)``).
    func exchange(
        _ request: URLRequest, progress: ((TransferEvent) -> Void)? = nil
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse, TransferMetrics) {
        // Coalescing (opt-in): identical GETs in flight share one transfer (HTTP/Coalescing).
        let shared = { var shared = self; shared.transferOptions.deadline = nil; return shared }()
        if transferOptions.coalescesIdenticalRequests, progress == nil,
           let key = await manager.coalescingKey(for: request, options: shared.transferOptions, door: "client") {
            let (data, response, metrics, sharedHold) = try await manager.coalescing.exchange.run(key) {
                () async throws(NetworkingError) in
                let hold = CompletionHold()
                do throws(NetworkingError) {
                    let (data, response, metrics) = try await shared.exchangeOnce(request, progress: nil, hold: hold)
                    return (data, response, metrics, hold)
                } catch {
                    hold.settle(error, value: nil)
                    throw error
                }
            }
            if let own = CompletionHold.current { own.forward(to: sharedHold) } else { sharedHold.settle(nil, value: nil) }
            return (data, response, metrics)
        }
        return try await exchangeOnce(request, progress: progress, hold: CompletionHold.current)
    }

    /// One exchange on a transfer of its own; `hold` is the call's completion hold, if any.
    private func exchangeOnce(
        _ request: URLRequest, progress: ((TransferEvent) -> Void)?, hold: CompletionHold?
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse, TransferMetrics) {
        var options = transferOptions
        options.completionHold = hold
        // One reader collects the whole body: never paused, so HTTP/2 where the server offers it.
        options.collectsWholeBody = true
        let handle = try await manager.dataTask(with: request, options: options)
        hold?.register(handle.id)
        var iterator = handle.events.makeAsyncIterator()
        var body = Data()
        var response: HTTPURLResponse?
        do {
            while let event = try await iterator.next() {
                switch event {
                case .response(let head):
                    response = head
                    body = Data()
                case .data(let chunk):
                    body.append(chunk)
                case .completed(let metrics):
                    guard let response else { break }
                    return (body, response, metrics)
                case .uploadProgress, .downloadProgress:
                    progress?(event)
                case .downloaded, .trailers:
                    break // the trailers are in the metrics too
                }
            }
        } catch {
            throw error.adding(request: request, response: response, body: body.isEmpty ? nil : body)
        }
        throw NetworkingError(
            .transport(.badServerResponse), "the transfer ended without an HTTP response", request: request
        )
    }
}

extension HTTPClient {
    /// This client for an awaiting call whose one reader collects the whole body (the upload and
    /// multipart forms built on an ``HTTPTask``'s value): its transfers are never paused for the
    /// reader, so on curl they get HTTP/2 where the server offers it, as the verbs' do.
    var collectingWholeBodies: HTTPClient {
        var client = self
        client.transferOptions.collectsWholeBody = true
        return client
    }
}
