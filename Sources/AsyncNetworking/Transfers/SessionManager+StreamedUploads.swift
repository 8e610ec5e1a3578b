import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How an upload body whose length is not known in advance is sent.
public enum StreamedUploadMode: Sendable, Hashable {
    /// Written to a temporary file in the system temporary directory first (one chunk in memory at
    /// a time), then sent from that file with a true `Content-Length`; deleted when the transfer
    /// ends, on every path. The body can be re-sent after a 307/308. The default: FoundationNetworking
    /// can send a stream only chunked, which some servers refuse.
    case spooled
    /// Sent while it is produced, with `Transfer-Encoding: chunked` (any `Content-Length` on the
    /// request is removed: sending both makes servers answer 400).
    ///
    /// On Linux FoundationNetworking reads a streamed body by blocking its session thread until the
    /// next bytes are ready, which holds up every other transfer of the manager meanwhile: use it
    /// with a producer that keeps up (it is failed after the request's `timeoutInterval` without
    /// bytes) and that does not itself wait on this manager. A body from an `AsyncSequence` is
    /// one-shot: a 307/308 fails the transfer with ``NetworkingError/Kind/unsupportedOperation``.
    case chunked
}

/// Uploads from an `AsyncSequence` of chunks or an `InputStream` (AFNetworking's
/// `uploadTaskWithStreamedRequest:`), with upload progress, in bounded memory.
extension SessionManager {
    /// Uploads the chunks of `body` and returns the response body and response.
    ///
    /// Suspends while the body is spooled (``StreamedUploadMode/spooled``) and until the transfer
    /// ends. Cancelling the calling task stops the spooling or the transfer and throws
    /// ``NetworkingError/Kind/cancelled``; the temporary file is deleted on every path.
    ///
    /// - Parameters:
    ///   - body: the request body, in order; iterated once.
    ///   - length: the total, when known, for the progress of a ``StreamedUploadMode/chunked`` upload
    ///     (default: the request's `Content-Length`, else unknown).
    ///   - mode: default ``StreamedUploadMode/spooled``.
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` (its `underlyingError` is the
    ///   sequence's) when `body` throws; the transfer's errors otherwise.
    public nonisolated func upload<Body: AsyncSequence & Sendable>(
        for request: URLRequest, from body: Body, length: Int64? = nil,
        mode: StreamedUploadMode = .spooled, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) where Body.Element == Data {
        let (request, source, resources) = try await Self.prepareSequence(body, request: request, length: length, mode: mode)
        return try await uploadAndCollect(request, body: source, options: options, resources: resources)
    }

    /// Starts an upload of the chunks of `body` and returns its handle, whose events report upload
    /// progress (bytes sent; expected from the spooled file, or from `length` when chunked).
    /// Suspends only while a ``StreamedUploadMode/spooled`` body is written to disk; everything else
    /// is as for the awaiting `upload(for:from:length:mode:options:)`.
    public nonisolated func uploadTask<Body: AsyncSequence & Sendable>(
        with request: URLRequest, from body: Body, length: Int64? = nil,
        mode: StreamedUploadMode = .spooled, options: TransferOptions = .default
    ) async throws(NetworkingError) -> TransferHandle where Body.Element == Data {
        let (request, source, resources) = try await Self.prepareSequence(body, request: request, length: length, mode: mode)
        return try await uploadHandle(request, body: source, options: options, resources: resources)
    }

    /// Uploads the bytes of an `InputStream` and returns the response body and response.
    ///
    /// - Parameters:
    ///   - makeStream: makes a new, unopened stream of the body. Called once, or again to re-send
    ///     the body after a 307/308 (chunked mode). It runs on a background thread.
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

    private static func prepareSequence<Body: AsyncSequence & Sendable>(
        _ body: Body, request: URLRequest, length: Int64?, mode: StreamedUploadMode
    ) async throws(NetworkingError) -> (URLRequest, UploadSource, UploadBodyResources) where Body.Element == Data {
        try RequestValidation.validate(request)
        var request = request
        let declared = length ?? request.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
        request.setValue(nil, forHTTPHeaderField: "Content-Length")
        request.httpBody = nil
        switch mode {
        case .spooled:
            let file = try await UploadSpooler.spool(body, request: request)
            return (request, .file(file), UploadBodyResources(temporaryFile: file))
        case .chunked:
            let pipe = ChunkPipe(stallTimeout: request.timeoutInterval) { pipe in
                do {
                    for try await chunk in body {
                        guard await pipe.push(chunk) else { return }
                    }
                    pipe.finish(nil)
                } catch {
                    pipe.finish(NetworkingError(
                        .requestSerializationFailed, "the upload body sequence threw: \(error)", underlyingError: error
                    ))
                }
            }
            let streamed = StreamedBody(length: declared, isReplayable: false) { BodyInputStream(reader: pipe) }
            return (request, .stream(streamed), UploadBodyResources(pipe: pipe))
        }
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
            return (request, .stream(StreamedBody(length: declared, isReplayable: true, make: makeStream)), .none)
        }
    }
}
