import Foundation

/// Splits a byte stream that arrives in chunks of any size into lines: pure, no I/O.
///
/// A line ends at LF, CR, or CRLF (the Server-Sent Events rule, which also covers JSON Lines and
/// text from any platform); the terminator is not part of the line. A CRLF split across two chunks
/// counts once: a CR ends its line at once (nothing waits for the next chunk) and a LF at the
/// start of the next chunk is then skipped. Splitting happens on bytes, so a UTF-8 sequence cut by
/// a chunk boundary is whole again in its line (CR and LF never occur inside one).
///
/// Memory: the current chunk plus at most `maxLineLength` bytes of an unfinished line. A line that
/// would grow past the limit throws ``NetworkingError/Kind/streamElementTooLarge(limit:)`` as soon
/// as the limit is passed, without waiting for its end.
///
/// Use: ``feed(_:)`` a chunk, call ``nextLine()`` until it returns `nil`, feed the next chunk; at
/// the end of the stream ``finish()`` returns a last line that had no terminator.
struct LineSplitter: Sendable {
    /// The longest line accepted, in bytes, terminator excluded.
    let maxLineLength: Int
    /// The unfinished line carried over from earlier chunks.
    private var pending = Data()
    /// The chunk being split, and where splitting continues in it.
    private var chunk = Data()
    private var position = 0
    /// The previous chunk ended with a CR: a LF opening this one belongs to it.
    private var skipLineFeed = false

    init(maxLineLength: Int) {
        self.maxLineLength = max(1, maxLineLength)
    }

    /// Whether the fed chunk is exhausted (``feed(_:)`` may be called).
    var needsInput: Bool { position >= chunk.count }

    /// Bytes held: the unfinished line and what is left of the chunk.
    var bufferedBytes: Int { pending.count + (chunk.count - position) }

    /// Hands the splitter the next chunk. Call only when ``nextLine()`` has returned `nil`.
    mutating func feed(_ data: Data) {
        precondition(needsInput, "LineSplitter.feed(_:) called before the previous chunk was consumed")
        // Rebased to 0, so positions are plain offsets whatever slice `data` is.
        chunk = data.startIndex == 0 ? data : Data(data)
        position = 0
    }

    /// The next complete line of the fed chunk, or `nil` when the chunk is exhausted.
    ///
    /// - Throws: ``NetworkingError/Kind/streamElementTooLarge(limit:)`` when a line is longer than
    ///   ``maxLineLength``.
    mutating func nextLine() throws(NetworkingError) -> Data? {
        let count = chunk.count
        if skipLineFeed, position < count {
            skipLineFeed = false
            if chunk[position] == 0x0A { position += 1 }
        }
        guard position < count else { return nil }
        let start = position
        let end: Int? = chunk.withUnsafeBytes { raw -> Int? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = start
            while index < count {
                let byte = bytes[index]
                if byte == 0x0A || byte == 0x0D { return index }
                index += 1
            }
            return nil
        }
        guard let end else {
            // No terminator in the rest of the chunk: keep it for the next one, within the limit.
            try check(pending.count + (count - start))
            pending.append(chunk[start..<count])
            position = count
            return nil
        }
        try check(pending.count + (end - start))
        let isCarriageReturn = chunk[end] == 0x0D
        position = end + 1
        if isCarriageReturn {
            if position < count {
                if chunk[position] == 0x0A { position += 1 }
            } else {
                skipLineFeed = true
            }
        }
        if pending.isEmpty { return Data(chunk[start..<end]) }
        var line = pending
        line.append(chunk[start..<end])
        pending = Data()
        return line
    }

    /// Ends the stream: the last line if it had no terminator (`nil` if the stream ended with one).
    mutating func finish() -> Data? {
        defer { pending = Data(); chunk = Data(); position = 0; skipLineFeed = false }
        if !needsInput {
            // Unread bytes of the chunk (the caller stopped early): they are part of no line it asked for.
            return nil
        }
        return pending.isEmpty ? nil : pending
    }

    private func check(_ length: Int) throws(NetworkingError) {
        guard length <= maxLineLength else {
            throw NetworkingError(.streamElementTooLarge(limit: maxLineLength), "a line of the stream is longer than \(maxLineLength) bytes")
        }
    }
}
