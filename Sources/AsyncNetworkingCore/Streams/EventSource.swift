import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Server-Sent Events stream that reconnects (the browser's `EventSource`, as an `AsyncSequence`):
/// ``SessionManager/serverSentEvents(for:configuration:)`` or ``HTTPClient/events(_:parameters:headers:configuration:)``.
///
/// ```swift
/// for try await event in manager.serverSentEvents(for: URLRequest(url: feed)) {
///     print(event.event, event.id ?? "-", event.data)
/// }
/// ```
///
/// Nothing is sent until the loop asks for the first event. Each connection is a GET (the request's
/// method, headers and body are kept) with `Accept: text/event-stream`, `Cache-Control: no-cache` and,
/// once the server has sent an `id:`, `Last-Event-ID` (a `Last-Event-ID` set on `request` is the
/// starting point, for resuming a stream read earlier).
///
/// - A `200` response whose `Content-Type` is `text/event-stream` is read as events (see
///   ``ServerSentEventSequence`` for the parsing rules).
/// - When that body ends, or the connection fails with a transport error (dropped, refused, timed
///   out), the source waits and connects again, sending `Last-Event-ID`. The wait is the server's
///   last `retry:` or ``Configuration/reconnectionTime`` (3 s), multiplied by
///   ``Configuration/backoffMultiplier`` (with jitter) for each unhealthy attempt in a row — a
///   failed connection, or a stream that ended within ``Configuration/healthyConnectionTime`` —
///   and always between ``Configuration/minimumReconnectionTime`` (500 ms) and
///   ``Configuration/maxReconnectionTime`` (60 s), a server's `retry:` included. After
///   ``Configuration/maxFailedAttempts`` failed connections in a row (default: no limit) the last
///   error is thrown.
/// - `204 No Content` ends the sequence (the standard's way for a server to say "stop").
/// - Any other status throws ``NetworkingError/Kind/unacceptableStatusCode(_:)``; another content
///   type throws ``NetworkingError/Kind/unacceptableContentType(_:)``; neither reconnects.
/// - An over-long line or event throws ``NetworkingError/Kind/streamElementTooLarge(limit:)``.
///
/// Cancellation: when the task iterating is cancelled — while connected, connecting or waiting to
/// reconnect — the transfer is cancelled and `next()` returns `nil`: the loop simply ends. Breaking
/// out of the loop (dropping the iterator) cancels the transfer too. Back-pressure holds: a slow
/// loop reads the body slowly and the transfer slows down with it (see <doc:Streams>).
public struct EventSource: AsyncSequence, Sendable {
    /// Each element is one dispatched event.
    public typealias Element = ServerSentEvent
    /// Every failure is a ``NetworkingError``.
    public typealias Failure = NetworkingError

    /// The manager that runs each connection.
    public let manager: SessionManager
    /// The request each connection sends (with the headers above added).
    public let request: URLRequest
    /// How the source reconnects and bounds memory.
    public let configuration: Configuration
    /// Waits before a reconnection (tests replace it to record the waits instead).
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    /// The clock that measures how long a stream stayed open (tests replace it).
    var now: @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }

    /// Creates a source; nothing is sent until iteration starts.
    public init(manager: SessionManager, request: URLRequest, configuration: Configuration = .default) {
        self.manager = manager
        self.request = request
        self.configuration = configuration
    }

    /// Creates an iterator with its own connections and last event ID.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(source: self)
    }

    /// Connects, reads, and reconnects.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: EventSource
        var parser: ServerSentEventParser
        var reader: LineReader<ResponseBody.AsyncIterator>?
        /// Failed attempts in a row since the last connection that opened (for the limit).
        var failedAttempts = 0
        /// Unhealthy attempts in a row since the last healthy stream (for backoff): failed
        /// connections and streams that ended within ``Configuration/healthyConnectionTime``.
        var unhealthyAttempts = 0
        /// When the current stream opened.
        var openedAt: ContinuousClock.Instant?
        /// Whether the next connection waits first (every connection but the first).
        var reconnecting = false
        var finished = false

        init(source: EventSource) {
            self.source = source
            // A `Last-Event-ID` of the caller's request is where the stream starts (resuming a
            // stream an earlier process read).
            self.parser = ServerSentEventParser(
                maxEventSize: source.configuration.limits.maxEventSize,
                lastEventID: source.request.value(forHTTPHeaderField: "Last-Event-ID") ?? ""
            )
        }

        /// The last event ID committed so far (`""` for none): what the next reconnection sends.
        public var lastEventID: String { parser.lastEventID }

        /// The next event; `nil` after a `204`, or once the iterating task is cancelled.
        ///
        /// Suspends while connecting, while waiting to reconnect, and until the server sends the
        /// next event.
        /// - Throws: see ``EventSource``. After a throw the sequence is over.
        public mutating func next() async throws(NetworkingError) -> ServerSentEvent? {
            while !finished {
                if Task.isCancelled { return end() }
                if reader == nil {
                    do throws(NetworkingError) {
                        try await connect()
                    } catch {
                        if Task.isCancelled { return end() }
                        try fail(error, connected: false)
                    }
                    continue
                }
                do throws(NetworkingError) {
                    guard let line = try await reader!.next(keepingUnterminated: false) else {
                        // The server ended the body: reconnect.
                        streamEnded()
                        continue
                    }
                    if let event = try parser.parse(line: line) { return event }
                } catch {
                    streamEnded()
                    if Task.isCancelled { return end() }
                    try fail(error, connected: true)
                }
            }
            return nil
        }

        /// Waits if this is a reconnection, then opens a connection (or ends on a 204).
        private mutating func connect() async throws(NetworkingError) {
            if reconnecting {
                let delay = source.configuration.delay(
                    serverRetry: parser.reconnectionTime, failedAttempts: unhealthyAttempts, jitter: Double.random(in: 0...1)
                )
                do {
                    try await source.sleep(delay)
                } catch {
                    throw NetworkingError(.cancelled, "the task waiting to reconnect was cancelled", request: source.request)
                }
            }
            reconnecting = true
            var request = source.request
            request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
            request.setValue("no-cache", forHTTPHeaderField: "Cache-Control")
            request.setValue(parser.lastEventID.isEmpty ? nil : parser.lastEventID, forHTTPHeaderField: "Last-Event-ID")
            let (body, response) = try await source.manager.stream(for: request, options: source.configuration.transferOptions)
            if response.statusCode == 204 {
                finished = true
                return
            }
            guard response.statusCode == 200 else {
                throw NetworkingError(
                    .unacceptableStatusCode(response.statusCode),
                    "an event stream must answer 200 (204 to stop)", request: request, response: response
                )
            }
            let contentType = response.value(forHTTPHeaderField: "Content-Type")
            let mediaType = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
            guard mediaType == "text/event-stream" else {
                throw NetworkingError(
                    .unacceptableContentType(contentType),
                    "an event stream must be text/event-stream", request: request, response: response
                )
            }
            failedAttempts = 0
            openedAt = source.now()
            parser.restart()
            reader = LineReader(body.makeAsyncIterator(), maxLineLength: source.configuration.limits.maxLineLength)
        }

        /// Decides whether `error` ends the sequence (rethrown) or is followed by a reconnection.
        private mutating func fail(_ error: NetworkingError, connected: Bool) throws(NetworkingError) {
            guard case .transport = error.kind else {
                finished = true
                throw error
            }
            if !connected {
                failedAttempts += 1
                unhealthyAttempts += 1
            }
            if let limit = source.configuration.maxFailedAttempts, failedAttempts > limit {
                finished = true
                throw error
            }
        }

        /// The open stream ended (its body ended, or it failed): healthy when it stayed open
        /// ``Configuration/healthyConnectionTime``, which resets backoff; else one more unhealthy
        /// attempt.
        private mutating func streamEnded() {
            reader = nil
            guard let opened = openedAt else { return }
            openedAt = nil
            if source.now() - opened >= source.configuration.healthyConnectionTime {
                unhealthyAttempts = 0
            } else {
                unhealthyAttempts += 1
            }
        }

        private mutating func end() -> ServerSentEvent? {
            finished = true
            reader = nil
            return nil
        }
    }
}

extension SessionManager {
    /// A Server-Sent Events stream of `request` that reconnects after a drop, sending
    /// `Last-Event-ID` and honouring `retry:`. See ``EventSource``.
    ///
    /// Nothing is sent until the loop asks for the first event; the loop ends when the iterating
    /// task is cancelled or the server answers `204`.
    nonisolated public func serverSentEvents(
        for request: URLRequest, configuration: EventSource.Configuration = .default
    ) -> EventSource {
        EventSource(manager: self, request: request, configuration: configuration)
    }
}
