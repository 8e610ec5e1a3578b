import Foundation

/// The lines of a body that arrives as `Data` chunks, as `String`s: `body.lines`.
///
/// A line ends at LF, CR or CRLF, wherever the chunks are cut; the terminator is not included and a
/// last line without one is still delivered. Bytes that are not UTF-8 become U+FFFD. The next chunk
/// is read only when the lines of the previous one are consumed, so a slow loop slows the transfer
/// (see <doc:Streams>). Cancelling the reading task, or breaking the loop, cancels a
/// ``ResponseBody``'s transfer.
public struct LineSequence<Base: AsyncSequence>: AsyncSequence where Base.Element == Data {
    /// Each element is one line, without its terminator.
    public typealias Element = String
    /// Every failure is a ``NetworkingError``.
    public typealias Failure = NetworkingError

    let base: Base
    let maxLineLength: Int

    /// Creates the iterator (iterate once for a ``ResponseBody``).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: LineReader(base.makeAsyncIterator(), maxLineLength: maxLineLength))
    }

    /// Reads lines.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var reader: LineReader<Base.AsyncIterator>

        /// The next line, or `nil` at the end of the body.
        ///
        /// - Throws: the body's error, or ``NetworkingError/Kind/streamElementTooLarge(limit:)``
        ///   for a line longer than the limit.
        public mutating func next() async throws(NetworkingError) -> String? {
            try await reader.next(keepingUnterminated: true).map { String(decoding: $0, as: UTF8.self) }
        }
    }
}

extension LineSequence: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The body's lines as `String`s (LF, CR or CRLF endings), lines up to
    /// ``StreamLimits/maxLineLength`` (4 MiB) long. See ``LineSequence``.
    public var lines: LineSequence<Self> { lines(maxLineLength: StreamLimits.default.maxLineLength) }

    /// The body's lines as `String`s; a line longer than `maxLineLength` bytes fails the sequence
    /// with ``NetworkingError/Kind/streamElementTooLarge(limit:)``. See ``LineSequence``.
    public func lines(maxLineLength: Int) -> LineSequence<Self> {
        LineSequence(base: self, maxLineLength: Swift.max(1, maxLineLength))
    }
}
