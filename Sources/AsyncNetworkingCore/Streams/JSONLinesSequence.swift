import Foundation

/// A JSON Lines / NDJSON body decoded one value per line: `body.jsonLines(of:decoder:maxLineLength:)`.
///
/// Each non-blank line (LF, CR or CRLF endings, cut anywhere by the chunks) is decoded as `Value`
/// with the decoder when it is asked for; blank and whitespace-only lines are skipped. Only one
/// line is decoded at a time and the next chunk is read only when the previous one's lines are
/// used up, so a slow loop slows the transfer and memory stays bounded (see <doc:Streams>).
public struct JSONLinesSequence<Base: AsyncSequence, Value: Decodable>: AsyncSequence where Base.Element == Data {
    /// Each element is one decoded line.
    public typealias Element = Value
    /// Every failure is a ``NetworkingError``.
    public typealias Failure = NetworkingError

    let base: Base
    let decoder: JSONDecoder
    let maxLineLength: Int

    /// Creates the iterator (iterate once for a ``ResponseBody``).
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: LineReader(base.makeAsyncIterator(), maxLineLength: maxLineLength), decoder: decoder)
    }

    /// Reads and decodes lines.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var reader: LineReader<Base.AsyncIterator>
        let decoder: JSONDecoder
        var lineNumber = 0

        /// The next value, or `nil` at the end of the body.
        ///
        /// - Throws: the body's error; ``NetworkingError/Kind/streamElementTooLarge(limit:)`` for a
        ///   line longer than the limit; ``NetworkingError/Kind/responseSerializationFailed`` for a
        ///   line that is not a `Value` (the `DecodingError` is the underlying error, the line the
        ///   ``NetworkingError/body``). The sequence ends after an error.
        public mutating func next() async throws(NetworkingError) -> Value? {
            while let line = try await reader.next(keepingUnterminated: true) {
                lineNumber += 1
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
                do {
                    return try decoder.decode(Value.self, from: line)
                } catch {
                    throw NetworkingError(
                        .responseSerializationFailed, "line \(lineNumber) is not a valid \(Value.self)",
                        body: line, underlyingError: error
                    )
                }
            }
            return nil
        }
    }
}

extension JSONLinesSequence: Sendable where Base: Sendable {}

extension AsyncSequence where Element == Data {
    /// The body as JSON Lines (NDJSON): one `Value` decoded per non-blank line. See ``JSONLinesSequence``.
    ///
    /// - Parameters:
    ///   - type: the type of each line.
    ///   - decoder: decodes each line. Default: a new `JSONDecoder`.
    ///   - maxLineLength: a longer line fails with ``NetworkingError/Kind/streamElementTooLarge(limit:)``.
    ///     Default ``StreamLimits/maxLineLength`` (4 MiB).
    public func jsonLines<Value: Decodable>(
        of type: Value.Type = Value.self, decoder: JSONDecoder = JSONDecoder(),
        maxLineLength: Int = StreamLimits.default.maxLineLength
    ) -> JSONLinesSequence<Self, Value> {
        JSONLinesSequence(base: self, decoder: decoder, maxLineLength: Swift.max(1, maxLineLength))
    }
}
