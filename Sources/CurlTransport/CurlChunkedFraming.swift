/// Where a chunked HTTP/1.1 response body stands, followed over the raw bytes libcurl reads (its
/// `CURLINFO_DATA_IN` debug data, passed on before libcurl removes the chunk framing): whether the
/// last chunk (`0` size) has arrived — the body is then complete, whatever its trailer section
/// holds — and whether the trailer section's blank line has ended the message.
///
/// libcurl 7.88 tells neither: after the last chunk it stops reading, but a transfer that is
/// still sending its request body does not end, and a trailer line it refuses (no colon, a bare
/// CR, a line longer than its trailer buffer) fails a response whose body was complete. A pure
/// value, tested without I/O; it follows libcurl's own chunk parser (`lib/http_chunks.c`): a
/// size in hex, anything up to the LF ignored (extensions), the data, CR LF (the CR optional),
/// then trailer lines up to an empty one. Bytes it cannot place (a size over 16 hex digits, no LF
/// after the data) stop the tracking: libcurl fails such a body itself.
struct CurlChunkedFraming: Sendable, Hashable {
    private enum State: Sendable, Hashable {
        case size(UInt64, digits: Int)
        case sizeLineRest(UInt64)
        case data(remaining: UInt64)
        case dataEnd
        case trailerLine(length: Int, afterCR: Bool)
        case complete
        case invalid
    }

    private var state = State.size(0, digits: 0)

    /// Whether the last chunk's size line has ended: the body is complete.
    private(set) var lastChunkSeen = false

    /// Whether a trailer line held a CR not followed by LF: libcurl hands the line over cut at the
    /// CR, then fails.
    private(set) var sawBareCRInTrailers = false

    /// Whether the blank line after the trailer section has arrived: the message is complete.
    var isComplete: Bool { state == .complete }

    /// Whether the bytes broke the framing (tracking stopped).
    var isInvalid: Bool { state == .invalid }

    /// Follows `bytes`, the next raw bytes of the body.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch state {
            case .complete, .invalid:
                return
            case .size(let size, let digits):
                if let value = Self.hexValue(byte) {
                    guard digits < 16 else { state = .invalid; return }
                    state = .size(size << 4 | UInt64(value), digits: digits + 1)
                } else if digits == 0 {
                    state = .invalid
                    return
                } else {
                    state = .sizeLineRest(size)
                    continue // this byte may be the LF
                }
            case .sizeLineRest(let size):
                if byte == Self.lf {
                    if size == 0 {
                        lastChunkSeen = true
                        state = .trailerLine(length: 0, afterCR: false)
                    } else {
                        state = .data(remaining: size)
                    }
                }
            case .data(let remaining):
                let available = UInt64(bytes.count - index)
                let taken = min(remaining, available)
                index += Int(taken)
                state = remaining == taken ? .dataEnd : .data(remaining: remaining - taken)
                continue
            case .dataEnd:
                if byte == Self.lf {
                    state = .size(0, digits: 0)
                } else if byte != Self.cr {
                    state = .invalid
                    return
                }
            case .trailerLine(let length, let afterCR):
                if byte == Self.lf {
                    state = length == 0 ? .complete : .trailerLine(length: 0, afterCR: false)
                } else {
                    // libcurl ends a trailer line at a CR: one not followed by LF cut the line.
                    if afterCR { sawBareCRInTrailers = true }
                    state = .trailerLine(length: byte == Self.cr ? length : length + 1, afterCR: byte == Self.cr)
                }
            }
            index += 1
        }
    }

    private static let lf = UInt8(ascii: "\n")
    private static let cr = UInt8(ascii: "\r")

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
