/// An incremental decoder for `Transfer-Encoding: chunked` request bodies. Pure: no I/O.
///
/// Feed it whatever bytes are available; it hands chunk data to a closure as slices of the
/// input (no copies), remembers where it stopped (even in the middle of a size line), and
/// reports how much input it used — bytes after the last chunk and trailers belong to the
/// next request on the connection.
struct ChunkedDecoder: Sendable {
    /// A chunked body violates the grammar.
    struct MalformedError: Error, Equatable {
        /// What was wrong, suitable for a 400 body.
        let reason: String
    }

    private enum State: Sendable {
        case size, sizeExtension, sizeLF, data, dataCR, dataLF, trailerStart, trailerLine, finalLF, done
    }

    private var state = State.size
    private var size: UInt64 = 0
    private var digits = 0
    private var remaining = 0

    /// Creates a decoder positioned at the first chunk-size line.
    init() {}

    /// Whether the last chunk and the trailer section have been read.
    var isFinished: Bool { state == .done }

    /// Decodes as much of `input` as possible, passing chunk data to `body`.
    ///
    /// - Returns: the number of input bytes used. Fewer than `input.count` only once finished.
    /// - Throws: ``MalformedError`` for a grammar violation, or what `body` throws.
    mutating func decode(_ input: UnsafeRawBufferPointer, body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        var index = 0
        let count = input.count
        while index < count && state != .done {
            if state == .data {
                let take = min(remaining, count - index)
                try body(UnsafeRawBufferPointer(rebasing: input[index..<(index + take)]))
                index += take
                remaining -= take
                if remaining == 0 { state = .dataCR }
                continue
            }
            let byte = input[index]
            index += 1
            try step(byte)
        }
        return index
    }

    private mutating func step(_ byte: UInt8) throws {
        switch state {
        case .size:
            if let value = Self.hexValue(byte) {
                digits += 1
                guard digits <= 15 else { throw MalformedError(reason: "chunk size too large") }
                size = size << 4 | UInt64(value)
            } else if byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                try requireDigits()
                state = .sizeExtension
            } else if byte == UInt8(ascii: "\r") {
                try requireDigits()
                state = .sizeLF
            } else if byte == UInt8(ascii: "\n") {
                try requireDigits()
                endSizeLine()
            } else {
                throw MalformedError(reason: "invalid character in chunk size")
            }
        case .sizeExtension:
            if byte == UInt8(ascii: "\r") {
                state = .sizeLF
            } else if byte == UInt8(ascii: "\n") {
                endSizeLine()
            }
        case .sizeLF:
            guard byte == UInt8(ascii: "\n") else { throw MalformedError(reason: "chunk size line not ended by LF") }
            endSizeLine()
        case .dataCR:
            if byte == UInt8(ascii: "\r") {
                state = .dataLF
            } else if byte == UInt8(ascii: "\n") {
                startSizeLine()
            } else {
                throw MalformedError(reason: "chunk data not followed by CRLF")
            }
        case .dataLF:
            guard byte == UInt8(ascii: "\n") else { throw MalformedError(reason: "chunk data not followed by CRLF") }
            startSizeLine()
        case .trailerStart:
            if byte == UInt8(ascii: "\r") {
                state = .finalLF
            } else if byte == UInt8(ascii: "\n") {
                state = .done
            } else {
                state = .trailerLine
            }
        case .trailerLine:
            if byte == UInt8(ascii: "\n") { state = .trailerStart }
        case .finalLF:
            guard byte == UInt8(ascii: "\n") else { throw MalformedError(reason: "chunked body not ended by CRLF") }
            state = .done
        case .data, .done:
            break
        }
    }

    private func requireDigits() throws {
        if digits == 0 { throw MalformedError(reason: "missing chunk size") }
    }

    private mutating func startSizeLine() {
        state = .size
        size = 0
        digits = 0
    }

    private mutating func endSizeLine() {
        if size == 0 {
            state = .trailerStart
        } else {
            remaining = Int(size)
            state = .data
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
