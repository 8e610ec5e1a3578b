import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Full duplex: the response is read while the request body is still being sent (as
/// AsyncHTTPClient's `execute` with a streamed body, or an HTTP/2 bidirectional stream).
extension SessionManager {
    /// Sends the chunks of `body` as the sequence produces them and returns as soon as the
    /// response head arrives — while the body may still be being sent: the response, and its
    /// body as an `AsyncSequence` of chunks to read with `for try await chunk in responseBody`.
    ///
    /// The two directions run independently (full duplex), so a body may wait for what the
    /// server answered so far — an echo, a protocol over one request — and a server that speaks
    /// first (head and body before reading any request body) is answered. On the curl transport,
    /// over HTTP/1.1 (the body chunked; the response may be chunked too) and HTTP/2 alike. The
    /// sequence is suspended while the connection cannot take more (at most 256 KiB ahead), and
    /// the response's bytes are bounded by ``TransferOptions/buffer`` as in
    /// ``stream(for:options:)``: a body that waits for the response must have its response read.
    ///
    /// A complete response is delivered complete whatever the state of the body: a server that
    /// answers at once — `2xx` or not, with a `Content-Length`, chunked, or with no body — while
    /// the sequence is still producing (or waiting) gives you every byte and then the end of the
    /// response body. The request body is then stopped (RFC 9112 §9.3: the HTTP/1.1 connection is
    /// closed without the body's last chunk, so the server never sees a complete request; an
    /// HTTP/2 stream is reset) and the sequence's iterating task is cancelled. With libcurl 7.88
    /// such a body is sent over HTTP/1.1 even where HTTP/2 is allowed: it cannot tell the end of
    /// an HTTP/2 response while the body is open (<doc:Transports>). A sequence is iterated once: a request that must be sent
    /// again (a 307/308, a retry with a credential) fails with
    /// ``NetworkingError/Kind/bodyStreamNotReplayable`` — use
    /// ``stream(for:fromSequence:trailers:options:)`` to re-send it.
    ///
    /// Suspends until the response head arrives. Cancelling the calling task then, or the task
    /// reading the returned body later, or dropping that body before its end, cancels the transfer
    /// in both directions and the sequence (its iterating task is cancelled), and throws
    /// ``NetworkingError/Kind/cancelled``.
    ///
    /// ```swift
    /// let (chunks, producer) = AsyncStream<Data>.makeStream()
    /// let (echo, response) = try await manager.stream(for: request, from: chunks)
    /// producer.yield(Data("ping 1".utf8))
    /// for try await chunk in echo { … producer.yield(next) … producer.finish() }
    /// print(echo.trailers) // after the end
    /// ```
    ///
    /// - Parameters:
    ///   - request: sent as given (set its method: `POST`, `PUT`…), except that `Content-Length`
    ///     and `httpBody` are removed: the body is sent chunked.
    ///   - body: the request body, in order; iterated once.
    ///   - trailers: trailer fields sent after the body (``RequestTrailers``). Default `nil`.
    /// - Throws: ``NetworkingError/Kind/unsupportedOperation`` on the URLSession transport and on
    ///   stubs, before anything is sent: FoundationNetworking sends a streamed body inside a
    ///   process-wide lock (so sequences are spooled whole before the request starts, and a body
    ///   that waits for the response would never end) — use ``uploadTask(with:from:mode:trailers:options:)``
    ///   for a half-duplex upload there. ``NetworkingError/Kind/invalidTrailerField`` for a refused
    ///   trailer field. ``NetworkingError/Kind/transportUnavailable`` when curl was asked for and
    ///   libcurl cannot be loaded. The transfer's errors, as ``stream(for:options:)`` throws them.
    public nonisolated func stream<Body: AsyncSequence & Sendable>(
        for request: URLRequest, from body: Body, trailers: RequestTrailers? = nil, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (ResponseBody, HTTPURLResponse) where Body.Element == Data {
        try await duplex(SequenceBody(once: body, trailers: trailers), request: request, options: options)
    }

    /// Full duplex with a body that `makeBody` makes as a new sequence for each attempt — the
    /// first, and again when the request must be re-sent (a 307/308, a retry with a credential).
    /// Otherwise as ``stream(for:from:trailers:options:)``.
    public nonisolated func stream<Body: AsyncSequence & Sendable>(
        for request: URLRequest, fromSequence makeBody: @escaping @Sendable () -> Body,
        trailers: RequestTrailers? = nil, options: TransferOptions = .default
    ) async throws(NetworkingError) -> (ResponseBody, HTTPURLResponse) where Body.Element == Data {
        try await duplex(SequenceBody(factory: makeBody, trailers: trailers), request: request, options: options)
    }

    /// Whether this manager's transport reads the response while a streamed body is being sent
    /// (``stream(for:from:trailers:options:)``): `true` on curl, `false` on URLSession and stubs.
    public nonisolated var supportsFullDuplex: Bool { engine.streamsSequenceBodies }

    private nonisolated func duplex(
        _ body: SequenceBody, request: URLRequest, options: TransferOptions
    ) async throws(NetworkingError) -> (ResponseBody, HTTPURLResponse) {
        #if os(Linux) && canImport(CCurlShim)
        if case .curlUnavailable(let message) = engine {
            throw NetworkingError(.transportUnavailable, message, request: request)
        }
        #endif
        guard engine.streamsSequenceBodies else {
            throw NetworkingError(
                .unsupportedOperation,
                "full duplex needs the curl transport: URLSession (and stubs) send a sequence body only after spooling it whole",
                request: request
            )
        }
        // Never spooled here (streamed on curl), so the first sequence is never asked for.
        let (prepared, source, resources) = try await prepareSequence(
            body, first: EmptyBody(), request: request, mode: .streamed
        )
        let handle = try await uploadHandle(prepared, body: source, options: options, resources: resources)
        var iterator = handle.events.makeAsyncIterator()
        while let event = try await iterator.next() {
            if case .response(let response) = event {
                return (ResponseBody(lifetime: handle.lifetime), response)
            }
        }
        throw NetworkingError(.transport(.badServerResponse), "the transfer ended without a response", request: request)
    }
}

/// No chunks: the spooling fallback's placeholder, never iterated by the duplex path.
private struct EmptyBody: AsyncSequence, Sendable {
    typealias Element = Data
    struct AsyncIterator: AsyncIteratorProtocol {
        mutating func next() async -> Data? { nil }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}
