import Foundation

/// Pulls chunks from a `Data` iterator through a ``LineSplitter``: the I/O shell every decoded
/// stream shares. It asks for the next chunk only when the lines of the last one are used up, so a
/// slow reader of lines is a slow reader of the body, and the transport's back-pressure holds.
struct LineReader<Base: AsyncIteratorProtocol> where Base.Element == Data {
    private var base: Base
    private var splitter: LineSplitter
    private var ended = false

    init(_ base: Base, maxLineLength: Int) {
        self.base = base
        self.splitter = LineSplitter(maxLineLength: maxLineLength)
    }

    /// The next line, or `nil` at the end of the body.
    ///
    /// - Parameter keepingUnterminated: whether a last line without a terminator is returned
    ///   (text and JSON Lines) or dropped (server-sent events, where it is an unfinished event).
    /// - Throws: what the body throws, as a ``NetworkingError``, and
    ///   ``NetworkingError/Kind/streamElementTooLarge(limit:)``.
    mutating func next(keepingUnterminated: Bool) async throws(NetworkingError) -> Data? {
        while true {
            if let line = try splitter.nextLine() { return line }
            if ended { return nil }
            let chunk: Data?
            do {
                chunk = try await base.next()
            } catch {
                ended = true
                throw Self.networkingError(error)
            }
            guard let chunk else {
                ended = true
                let last = splitter.finish()
                return keepingUnterminated ? last : nil
            }
            splitter.feed(chunk)
        }
    }

    /// Any error of the base sequence as a ``NetworkingError``.
    static func networkingError(_ error: any Error) -> NetworkingError {
        if let error = error as? NetworkingError { return error }
        if error is CancellationError { return NetworkingError(.cancelled, "the body sequence was cancelled", underlyingError: error) }
        return NetworkingError(.transport(.unknown), "the body sequence failed", underlyingError: error)
    }
}
