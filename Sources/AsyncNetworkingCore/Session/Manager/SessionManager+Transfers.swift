import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Starting transfers: handles with event streams, and the awaiting conveniences built on them.
extension SessionManager {
    /// Starts a data transfer and returns its handle; read its ``TransferHandle/events``.
    ///
    /// The event stream exists before the URLSession task starts, so nothing is missed however late
    /// you iterate. Events are buffered until read (memory bounded by ``TransferOptions/buffer``).
    ///
    /// The request's own body is sent whole on every transport: `httpBody` with its length, and
    /// `httpBodyStream` read as it is sent, chunked (any `Content-Length` on the request is then
    /// removed). A stream is read once: a request that must be sent again (a 307/308, a retry with
    /// a credential) fails with ``NetworkingError/Kind/bodyStreamNotReplayable`` rather than send
    /// an empty or partial body (give a body you can make again to
    /// ``uploadTask(with:bodyStream:options:)`` instead). The same holds for every call that takes
    /// a request: ``data(for:options:)``, ``stream(for:options:)``, ``fetch(_:options:)``, the
    /// downloads and the batches.
    ///
    /// - Throws: ``NetworkingError/Kind/invalidURL`` or ``NetworkingError/Kind/unsupportedScheme(_:)``
    ///   for a bad URL, ``NetworkingError/Kind/sessionInvalidated`` after invalidation,
    ///   ``NetworkingError/Kind/bodyStreamNotReplayable`` for an `httpBodyStream` that was already
    ///   opened or handed to another transfer — before anything is sent.
    public func dataTask(with request: URLRequest, options: TransferOptions = .default) throws(NetworkingError) -> TransferHandle {
        let (sent, upload) = try RequestCarriedBody.split(request)
        return try makeHandle(sent, upload: upload, options: options, kind: .data)
    }

    /// Starts an upload of `body` and returns its handle; upload progress events report the bytes sent.
    public func uploadTask(with request: URLRequest, from body: Data, options: TransferOptions = .default) throws(NetworkingError) -> TransferHandle {
        try makeHandle(request, upload: .data(body), options: options)
    }

    /// Starts an upload of the file at `fileURL` (read from disk as it is sent, never whole into
    /// memory) and returns its handle.
    ///
    /// - Throws: ``NetworkingError/Kind/fileReadFailed`` when the file does not exist or cannot be read.
    public func uploadTask(with request: URLRequest, fromFile fileURL: URL, options: TransferOptions = .default) throws(NetworkingError) -> TransferHandle {
        try Self.checkReadable(fileURL, request: request)
        return try makeHandle(request, upload: .file(fileURL), options: options)
    }

    /// Loads `request` and returns the whole body and the response, for any status code.
    ///
    /// Suspends until the transfer ends. Cancelling the calling task cancels the transfer and throws
    /// ``NetworkingError/Kind/cancelled`` once URLSession has stopped it (the registry is then clean).
    ///
    /// With ``TransferOptions/coalescesIdenticalRequests``, an identical `GET` already in flight —
    /// the same request on the wire, handled the same way (see <doc:Coalescing>) — is joined
    /// instead of started again; cancelling then ends only this caller's wait, and so does this
    /// caller's ``TransferOptions/deadline`` (the shared transfer has none).
    ///
    /// The request's `httpBody` or `httpBodyStream` is sent whole, or the call fails with a typed
    /// error: see ``dataTask(with:options:)``.
    public nonisolated func data(for request: URLRequest, options: TransferOptions = .default) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        // Coalescing (opt-in): identical GETs in flight share one transfer (HTTP/Coalescing).
        let shared = { var shared = options; shared.deadline = nil; return shared }()
        if options.coalescesIdenticalRequests, let key = await coalescingKey(for: request, options: shared, door: "data") {
            let deadline = try Self.deadline(of: options, request: request)
            return try await DeadlineRace.run(until: deadline, phrase: options.deadline?.phrase ?? "", request: request) {
                () async throws(NetworkingError) in
                try await self.coalescing.data.run(key) { () async throws(NetworkingError) in
                    try await self.collect(request, upload: .none, options: shared, kind: .data)
                }
            }
        }
        let (sent, upload) = try RequestCarriedBody.split(request)
        return try await collect(sent, upload: upload, options: options, kind: .data)
    }

    /// Loads `url` with a GET and returns the whole body and the response. See ``data(for:options:)``.
    public nonisolated func data(from url: URL, options: TransferOptions = .default) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        try await data(for: URLRequest(url: url), options: options)
    }

    /// Uploads `body` and returns the response body and response. See ``data(for:options:)``.
    public nonisolated func upload(for request: URLRequest, from body: Data, options: TransferOptions = .default) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        try await collect(request, upload: .data(body), options: options)
    }

    /// Uploads the file at `fileURL` and returns the response body and response.
    public nonisolated func upload(for request: URLRequest, fromFile fileURL: URL, options: TransferOptions = .default) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        try SessionManager.checkReadable(fileURL, request: request)
        return try await collect(request, upload: .file(fileURL), options: options)
    }

    /// Starts `request` and returns once the response head arrives: the response, and the body as
    /// an `AsyncSequence` of `Data` chunks to read with `for try await chunk in body`.
    ///
    /// Memory stays bounded however slowly you read (see ``TransferOptions/buffer``). Dropping the
    /// body sequence before the end cancels the transfer.
    public func stream(for request: URLRequest, options: TransferOptions = .default) async throws(NetworkingError) -> (ResponseBody, HTTPURLResponse) {
        let handle = try dataTask(with: request, options: options)
        var iterator = handle.events.makeAsyncIterator()
        while let event = try await iterator.next() {
            if case .response(let response) = event {
                return (ResponseBody(lifetime: handle.lifetime), response)
            }
        }
        throw NetworkingError(.transport(.badServerResponse), "the transfer ended without a response", request: request)
    }

    /// Starts a GET of `url`; see ``stream(for:options:)``.
    public func stream(from url: URL, options: TransferOptions = .default) async throws(NetworkingError) -> (ResponseBody, HTTPURLResponse) {
        try await stream(for: URLRequest(url: url), options: options)
    }

    // MARK: Internals

    func makeHandle(
        _ request: URLRequest, upload: UploadSource, options: TransferOptions, kind: TransferKind? = nil
    ) throws(NetworkingError) -> TransferHandle {
        var channel: EventChannel?
        let state = try register(request, upload: upload, options: options) { id in
            let made = EventChannel(policy: options.eventBufferPolicy) { [weak self] in
                self?.perform { $0.cancelTransfer(id, reason: NetworkingError(.cancelled, "the event stream was cancelled or abandoned")) }
            }
            channel = made
            return ChannelSink(channel: made, flowControlled: !options.collectsWholeBody)
        }
        state.declaredKind = kind
        return TransferHandle(id: state.id, originalRequest: request, manager: self, lifetime: ConsumerLifetime(channel: channel!))
    }

    /// The whole-body path: see ``awaitTransfer(_:cleanup:start:)``.
    nonisolated func collect(
        _ request: URLRequest, upload: UploadSource, options: TransferOptions, kind: TransferKind? = nil
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        let collected = try await awaitTransfer(request) { manager, id, continuation throws(NetworkingError) in
            let state = try manager.register(request, id: id, upload: upload, options: options) { _ in
                CollectorSink(continuation: continuation)
            }
            state.declaredKind = kind
        }
        return try collected.makeResult(request: request)
    }

    static func checkReadable(_ fileURL: URL, request: URLRequest) throws(NetworkingError) {
        var isDirectory: ObjCBool = false
        guard fileURL.isFileURL,
              FileManager.default.fileExists(atPath: fileURL.path, isDirectory: &isDirectory),
              !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: fileURL.path)
        else {
            throw NetworkingError(.fileReadFailed, "no readable file at \(fileURL.path)", request: request, fileURL: fileURL)
        }
    }
}
