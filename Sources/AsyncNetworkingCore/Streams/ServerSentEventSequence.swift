import Foundation

/// A `text/event-stream` body decoded into events, without reconnecting:
/// `body.serverSentEvents(limits:)`. For a stream that reconnects after a
/// drop, use ``EventSource`` (``SessionManager/serverSentEvents(for:configuration:)``).
///
/// The WHATWG rules apply (see <doc:Streams>): CR, LF and CRLF line endings cut anywhere, a leading
/// byte order mark, comments, `data` lines joined with LF, `event` defaulting to `"message"`, `id`
/// with NUL ignored, `retry` digits only; an event is delivered on its blank line, and an event
/// the body ends in the middle of is dropped.
public struct ServerSentEventSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// Each element is one dispatched event.
    public typealias Element = ServerSentEvent
    /// Every failure is a ``NetworkingError``.
    public typealias Failure = NetworkingError

    let base: Base
    let limits: StreamLimits

    /// Creates the iterator (iterate once for a ``ResponseBody``).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            reader: LineReader(base.makeAsyncIterator(), maxLineLength: limits.maxLineLength),
            parser: ServerSentEventParser(maxEventSize: limits.maxEventSize)
        )
    }

    /// Reads events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var reader: LineReader<Base.AsyncIterator>
        var parser: ServerSentEventParser

        /// The next event, or `nil` at the end of the body.
        ///
        /// - Throws: the body's error, or ``NetworkingError/Kind/streamElementTooLarge(limit:)``.
        public mutating func next() async throws(NetworkingError) -> ServerSentEvent? {
            while let line = try await reader.next(keepingUnterminated: false) {
                if let event = try parser.parse(line: line) { return event }
            }
            return nil
        }
    }
}

extension ServerSentEventSequence: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The body as Server-Sent Events, without reconnection. See ``ServerSentEventSequence``.
    ///
    /// - Parameter limits: the longest line and the largest event. Default ``StreamLimits/default``.
    public func serverSentEvents(limits: StreamLimits = .default) -> ServerSentEventSequence<Self> {
        ServerSentEventSequence(base: self, limits: limits)
    }
}
