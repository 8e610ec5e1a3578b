import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How an `InputStream` upload body is sent.
public enum StreamedUploadMode: Sendable, Hashable {
    /// Read to a temporary file in the system temporary directory first (on a background thread,
    /// 256 KiB at a time), then sent from that file with a true `Content-Length`; deleted when the
    /// transfer ends, on every path. The default: FoundationNetworking can send a stream only
    /// chunked, which some servers refuse.
    case spooled
    /// Read while it is sent, with `Transfer-Encoding: chunked` (any `Content-Length` on the request
    /// is removed: sending both makes servers answer 400). Re-sent after a 307/308 from a new stream.
    ///
    /// Only for streams whose reads never wait (memory, local files): FoundationNetworking reads the
    /// body inside a process-wide lock, so a read that waits holds up every transfer of every
    /// URLSession in the process.
    case chunked
}

/// How an `AsyncSequence` upload body is sent.
public enum SequenceUploadMode: Sendable, Hashable {
    /// As the sequence produces it, chunked, with back-pressure — on the curl transport. On
    /// URLSession and stubs it is spooled instead (FoundationNetworking reads a streamed body
    /// inside a process-wide lock, so waiting there for the next chunk would hold up every
    /// transfer of every URLSession in the process). The default.
    case streamed
    /// Written to a temporary file first, then sent with a true `Content-Length` and re-sent whole
    /// after a 307/308; the file is deleted when the transfer ends.
    case spooled
}

/// Uploads from an `AsyncSequence` of chunks or an `InputStream` (AFNetworking's
/// `uploadTaskWithStreamedRequest:`), with upload progress, in bounded memory.
extension SessionManager {
    /// Uploads the chunks of `body` and returns the response body and response.
    ///
    /// ``SequenceUploadMode/streamed`` (the default) on the curl transport: the chunks go out as
    /// the sequence produces them (chunked), and the sequence is suspended while the connection
    /// cannot take more (at most 256 KiB ahead), so memory stays bounded whatever the body's size.
    /// A sequence is iterated once, so a request that must be sent again (a 307/308, a retry with a
    /// credential) fails with ``NetworkingError/Kind/bodyStreamNotReplayable``: give a factory
    /// (``upload(for:fromSequence:mode:trailers:options:)``) to re-send it. ``SequenceUploadMode/spooled``,
    /// and every upload on URLSession or stubs, writes the chunks to a temporary file first (one
    /// chunk in memory at a time) and sends it with a true `Content-Length` (re-sent whole after a
    /// 307/308); the file is deleted when the transfer ends, on every path.
    ///
    /// On curl the response head and body are read while the body is still being sent (full
    /// duplex); a server whose complete response arrives before the body ended — any status —
    /// stops the upload (no more is sent; the connection is closed), and that response is the
    /// result. To read the response while sending, use ``stream(for:from:trailers:options:)``.
    ///
    /// Suspends until the transfer ends. Cancelling the calling task stops it (and the sequence)
    /// and throws ``NetworkingError/Kind/cancelled``.
    ///
    /// - Parameters:
    ///   - body: the request body, in order; iterated once.
    ///   - trailers: trailer fields sent after the body (``RequestTrailers``; curl and
    ///     ``SequenceUploadMode/streamed`` only). Default `nil`: none.
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` (its `underlyingError` is the
    ///   sequence's) when `body` throws; ``NetworkingError/Kind/invalidTrailerField`` for a refused
    ///   trailer field; ``NetworkingError/Kind/unsupportedOperation`` for trailers on URLSession,
    ///   stubs or a spooled body; the transfer's errors otherwise.
    public nonisolated func upload<Body: AsyncSequence & Sendable>(
        for request: URLRequest, from body: Body, mode: SequenceUploadMode = .streamed, trailers: RequestTrailers? = nil,
        options: TransferOptions = .default
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) where Body.Element == Data {
        let (request, source, resources) = try await prepareSequence(
            SequenceBody(once: body, trailers: trailers), first: body, request: request, mode: mode
        )
        return try await uploadAndCollect(request, body: source, options: options, resources: resources)
    }

    /// Starts an upload of the chunks of `body` and returns its handle; see
    /// ``upload(for:from:mode:trailers:options:)``. Suspends only while a spooled body is written.
    /// On curl the handle's events (the response, its data, ``TransferEvent/trailers(_:)``) arrive
    /// while the body is still being sent (full duplex).
    public nonisolated func uploadTask<Body: AsyncSequence & Sendable>(
        with request: URLRequest, from body: Body, mode: SequenceUploadMode = .streamed, trailers: RequestTrailers? = nil,
        options: TransferOptions = .default
    ) async throws(NetworkingError) -> TransferHandle where Body.Element == Data {
        let (request, source, resources) = try await prepareSequence(
            SequenceBody(once: body, trailers: trailers), first: body, request: request, mode: mode
        )
        return try await uploadHandle(request, body: source, options: options, resources: resources)
    }

    /// Uploads a body that `makeBody` makes as a new sequence for each attempt — the first, and
    /// again when the request must be re-sent (a 307/308, a retry with a credential) — and returns
    /// the response body and response. Otherwise as ``upload(for:from:mode:trailers:options:)``.
    public nonisolated func upload<Body: AsyncSequence & Sendable>(
        for request: URLRequest, fromSequence makeBody: @escaping @Sendable () -> Body,
        mode: SequenceUploadMode = .streamed, trailers: RequestTrailers? = nil, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) where Body.Element == Data {
        let (request, source, resources) = try await prepareSequence(
            SequenceBody(factory: makeBody, trailers: trailers), first: makeBody(), request: request, mode: mode
        )
        return try await uploadAndCollect(request, body: source, options: options, resources: resources)
    }

    /// Starts an upload whose body `makeBody` makes for each attempt, and returns its handle; see
    /// ``upload(for:fromSequence:mode:trailers:options:)``.
    public nonisolated func uploadTask<Body: AsyncSequence & Sendable>(
        with request: URLRequest, fromSequence makeBody: @escaping @Sendable () -> Body,
        mode: SequenceUploadMode = .streamed, trailers: RequestTrailers? = nil, options: TransferOptions = .default
    ) async throws(NetworkingError) -> TransferHandle where Body.Element == Data {
        let (request, source, resources) = try await prepareSequence(
            SequenceBody(factory: makeBody, trailers: trailers), first: makeBody(), request: request, mode: mode
        )
        return try await uploadHandle(request, body: source, options: options, resources: resources)
    }

    /// Uploads the bytes of an `InputStream` and returns the response body and response.
    ///
    /// - Parameters:
    ///   - makeStream: makes a new, unopened stream of the whole body. Called once, or again to
    ///     re-send the body after a 307/308 (chunked mode); keep it quick (in chunked mode it runs on
    ///     the manager's executor).
    ///   - length: the total, when known, for progress in ``StreamedUploadMode/chunked`` mode
    ///     (default: the request's `Content-Length`, else unknown).
    ///   - mode: default ``StreamedUploadMode/spooled``.
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` when the stream reports an error.
    public nonisolated func upload(
        for request: URLRequest, fromStream makeStream: @escaping @Sendable () -> InputStream, length: Int64? = nil,
        mode: StreamedUploadMode = .spooled, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        let (request, source, resources) = try await Self.prepareStream(makeStream, request: request, length: length, mode: mode)
        return try await uploadAndCollect(request, body: source, options: options, resources: resources)
    }

    /// Starts an upload of the bytes of an `InputStream` and returns its handle. See
    /// ``upload(for:fromStream:length:mode:options:)``.
    public nonisolated func uploadTask(
        with request: URLRequest, fromStream makeStream: @escaping @Sendable () -> InputStream, length: Int64? = nil,
        mode: StreamedUploadMode = .spooled, options: TransferOptions = .default
    ) async throws(NetworkingError) -> TransferHandle {
        let (request, source, resources) = try await Self.prepareStream(makeStream, request: request, length: length, mode: mode)
        return try await uploadHandle(request, body: source, options: options, resources: resources)
    }

    // MARK: Internals

    /// Streams `body` on curl (``SequenceUploadMode/streamed``), else spools `first` (its first
    /// sequence; a factory's is made only when spooling) to a temporary file. Trailers need the
    /// streamed mode on curl; fixed ones are checked here, before anything is sent.
    nonisolated func prepareSequence<Body: AsyncSequence & Sendable>(
        _ body: SequenceBody, first: @autoclosure () -> Body, request: URLRequest, mode: SequenceUploadMode
    ) async throws(NetworkingError) -> (URLRequest, UploadSource, UploadBodyResources) where Body.Element == Data {
        try RequestValidation.validate(request)
        var request = request
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        request.httpBody = nil
        if let trailers = body.trailers {
            guard mode == .streamed, engine.streamsSequenceBodies else {
                throw NetworkingError(
                    .unsupportedOperation,
                    mode == .streamed
                        ? "request trailers need the curl transport: URLSession and stubs cannot send them"
                        : "request trailers need a streamed (chunked) body: a spooled body is sent with a Content-Length",
                    request: request
                )
            }
            if let fields = try trailers.checkedFixedFields(request: request), !fields.isEmpty,
               request.value(forHTTPHeaderField: "Trailer") == nil {
                request.setValue(fields.map(\.name).joined(separator: ", "), forHTTPHeaderField: "Trailer")
            }
        }
        if mode == .streamed, engine.streamsSequenceBodies {
            return (request, .sequence(body), .none)
        }
        let file = try await UploadSpooler.spool(first(), request: request)
        return (request, .file(file), UploadBodyResources(temporaryFile: file))
    }

    private static func prepareStream(
        _ makeStream: @escaping @Sendable () -> InputStream, request: URLRequest, length: Int64?, mode: StreamedUploadMode
    ) async throws(NetworkingError) -> (URLRequest, UploadSource, UploadBodyResources) {
        try RequestValidation.validate(request)
        var request = request
        let declared = length ?? request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        request.httpBody = nil
        switch mode {
        case .spooled:
            let file = try await UploadSpooler.spool(stream: makeStream, request: request)
            return (request, .file(file), UploadBodyResources(temporaryFile: file))
        case .chunked:
            return (request, .stream(StreamedBody(length: declared, make: makeStream)), .none)
        }
    }
}

/// Streamed uploads whose producer makes each attempt's stream (AFNetworking's
/// `uploadTaskWithStreamedRequest:` with `setTaskNeedNewBodyStreamBlock:`).
extension SessionManager {
    /// Starts an upload whose body is read from the streams `bodyStream` makes — one per attempt:
    /// the first, and a fresh one when the request must be sent again (a 307/308 redirect, a retry
    /// with a credential after a 401/407). The body is sent chunked while it is read.
    ///
    /// A producer that cannot make another stream (``BodyStreamProducer/once(_:length:)``, or one
    /// returning `nil`) ends the transfer with ``NetworkingError/Kind/bodyStreamNotReplayable``
    /// when a re-send is needed, instead of sending an empty or partial body.
    public func uploadTask(
        with request: URLRequest, bodyStream: BodyStreamProducer, options: TransferOptions = .default
    ) throws(NetworkingError) -> TransferHandle {
        try makeHandle(Self.streamedRequest(request), upload: .stream(StreamedBody(bodyStream)), options: options, kind: .upload)
    }

    /// Uploads the body `bodyStream` makes and returns the response body and response; see
    /// ``uploadTask(with:bodyStream:options:)``. Suspends until the transfer ends; cancelling the
    /// calling task cancels it.
    public nonisolated func upload(
        for request: URLRequest, bodyStream: BodyStreamProducer, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        try await collect(Self.streamedRequest(request), upload: .stream(StreamedBody(bodyStream)), options: options, kind: .upload)
    }

    /// A streamed body goes chunked: any `Content-Length` and inline body are removed.
    private static func streamedRequest(_ request: URLRequest) -> URLRequest {
        var request = request
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        request.httpBody = nil
        request.httpBodyStream = nil
        return request
    }

    /// URLSession must send a task's streamed body again: a fresh stream from the producer, or
    /// `nil` — and the transfer fails with ``NetworkingError/Kind/bodyStreamNotReplayable``.
    func taskNeedsNewBodyStream(attemptID: AttemptID, completion: @Sendable (InputStream?) -> Void) {
        guard let state = transfersByAttempt[attemptID], state.phase == .running else { return completion(nil) }
        let stream: InputStream?
        switch state.upload {
        case .stream(let body): stream = body.makeInputStream()
        case .file(let url):
            let length = TransferFiles.size(of: url) ?? 0
            stream = BodyInputStream(reader: FileBodyReader(url: url, length: length))
        case .data(let data): stream = InputStream(data: data)
        case .none: stream = state.currentRequest.httpBody.map { InputStream(data: $0) }
        case .sequence: stream = nil // never on URLSession: sequences are spooled for it
        }
        guard let stream else {
            if state.attemptFailure == nil {
                state.attemptFailure = NetworkingError(
                    .bodyStreamNotReplayable,
                    "the request body had to be sent again and its producer could not make a new stream",
                    request: state.originalRequest
                )
            }
            return completion(nil)
        }
        state.bodyStream = stream
        completion(stream)
    }
}
