/// A gzip member that decompresses to `count` zero bytes (the `/gzip/N` "gzip bomb").
///
/// There is no zlib here, so the member is written by hand: a 10-byte header, one
/// fixed-Huffman deflate block (`BFINAL = 1`, `BTYPE = 01`) holding a literal `0x00`
/// followed by length-258 / distance-1 matches (each 13 bits, copying the previous 258
/// zeros), a final shorter match or one or two literals for the remainder, and the
/// end-of-block code; then the CRC-32 of the output and its length mod 2³² (ISIZE).
/// The stream is produced in pieces, so any `count` is served in bounded memory.
enum GzipZeros {
    /// Base match lengths of length symbols 257...285 (RFC 1951 §3.2.5).
    private static let lengthBase: [Int] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
        35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    /// Extra bits of length symbols 257...285.
    private static let lengthExtra: [Int] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
        3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ]

    /// The gzip header: magic, CM = deflate, no flags, MTIME 0, XFL 0, OS = Unix.
    private static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0x03]

    /// The exact size in bytes of the member for `count` zero bytes (the `Content-Length`).
    static func compressedSize(count: Int) -> Int {
        precondition(count >= 0)
        var bits = 3 + 7 // block header + end of block
        if count > 0 {
            bits += 8 // the literal zero
            let rest = count - 1
            bits += (rest / 258) * 13
            let tail = rest % 258
            if tail >= 3 {
                bits += matchBits(length: tail)
            } else {
                bits += tail * 8
            }
        }
        return header.count + (bits + 7) / 8 + 8
    }

    /// Produces the member for `count` zero bytes, handing it to `sink` in pieces of at most 64 KiB.
    static func write(count: Int, to sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        precondition(count >= 0)
        var writer = BitWriter()
        writer.bytes.append(contentsOf: header)
        writer.writeBits(1, count: 1) // BFINAL
        writer.writeBits(1, count: 2) // BTYPE = 01, fixed Huffman
        if count > 0 {
            writeLiteralZero(&writer)
            var rest = count - 1
            while rest >= 258 {
                writeMatch(&writer, length: 258)
                rest -= 258
                if writer.bytes.count >= 64 * 1024 { try writer.drain(to: sink) }
            }
            if rest >= 3 {
                writeMatch(&writer, length: rest)
            } else {
                for _ in 0..<rest { writeLiteralZero(&writer) }
            }
        }
        writer.writeHuffman(0, length: 7) // end of block, symbol 256
        writer.alignToByte()
        let crc = CRC32.ofZeros(count: count)
        let size = UInt32(truncatingIfNeeded: count)
        for shift in stride(from: 0, to: 32, by: 8) { writer.bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { writer.bytes.append(UInt8(truncatingIfNeeded: size >> UInt32(shift))) }
        try writer.drain(to: sink)
    }

    private static func lengthSymbolIndex(_ length: Int) -> Int {
        if length == 258 { return 28 }
        var index = 27
        while lengthBase[index] > length { index -= 1 }
        return index
    }

    private static func matchBits(length: Int) -> Int {
        let index = lengthSymbolIndex(length)
        let symbol = 257 + index
        return (symbol < 280 ? 7 : 8) + lengthExtra[index] + 5
    }

    private static func writeLiteralZero(_ writer: inout BitWriter) {
        writer.writeHuffman(0x30, length: 8) // literal 0: code 0x30 + 0, 8 bits
    }

    private static func writeMatch(_ writer: inout BitWriter, length: Int) {
        let index = lengthSymbolIndex(length)
        let symbol = 257 + index
        if symbol < 280 {
            writer.writeHuffman(UInt32(symbol - 256), length: 7)
        } else {
            writer.writeHuffman(UInt32(0xC0 + symbol - 280), length: 8)
        }
        let extra = lengthExtra[index]
        if extra > 0 { writer.writeBits(UInt32(length - lengthBase[index]), count: extra) }
        writer.writeHuffman(0, length: 5) // distance code 0 = distance 1, no extra bits
    }
}

/// Packs deflate bit fields least-significant-bit first into bytes.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var accumulator: UInt64 = 0
    private var pending = 0

    init() {
        bytes.reserveCapacity(64 * 1024 + 64)
    }

    /// Appends the low `count` bits of `value`, least significant first (data fields, extra bits).
    mutating func writeBits(_ value: UInt32, count: Int) {
        accumulator |= UInt64(value & ((1 << UInt32(count)) &- 1)) << UInt64(pending)
        pending += count
        while pending >= 8 {
            bytes.append(UInt8(truncatingIfNeeded: accumulator))
            accumulator >>= 8
            pending -= 8
        }
    }

    /// Appends a Huffman code, whose bits are defined most significant first.
    mutating func writeHuffman(_ code: UInt32, length: Int) {
        var reversed: UInt32 = 0
        for bit in 0..<length {
            reversed |= ((code >> UInt32(bit)) & 1) << UInt32(length - 1 - bit)
        }
        writeBits(reversed, count: length)
    }

    /// Pads the last partial byte with zero bits.
    mutating func alignToByte() {
        if pending > 0 { writeBits(0, count: 8 - pending) }
    }

    /// Hands the completed bytes to `sink` and forgets them.
    mutating func drain(to sink: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        guard !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { try sink($0) }
        bytes.removeAll(keepingCapacity: true)
    }
}
