#if os(Linux) && canImport(CCurlShim)
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// ``ContentDecoder`` without I/O: every coding decodes the same whether input arrives whole or one
/// byte at a time and whether output room is large or one byte; it never yields more than the room
/// it is given; it only calls a stream complete at its end.
@Suite("Content decoder")
struct ContentDecoderTests {
    static let text = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 * 7 / 5) })

    static func encoded() -> [(String, [ContentCoding], Data)] {
        var cases: [(String, [ContentCoding], Data)] = []
        if let gzip = ContentEncoders.gzip(text) { cases.append(("gzip", [.gzip], gzip)) }
        if let zlib = ContentEncoders.zlib(text) { cases.append(("deflate", [.deflate], zlib)) }
        if let raw = ContentEncoders.rawDeflate(text) { cases.append(("raw deflate", [.deflate], raw)) }
        if let br = ContentEncoders.brotli(text) { cases.append(("br", [.brotli], br)) }
        if let zstd = ContentEncoders.zstd(text) { cases.append(("zstd", [.zstd], zstd)) }
        if let gzip = ContentEncoders.gzip(text), let both = ContentEncoders.zstd(gzip) { cases.append(("gzip, zstd", [.gzip, .zstd], both)) }
        return cases
    }

    /// Feeds `data` in pieces of `piece` bytes with `room` bytes of output per call.
    static func decode(_ data: Data, _ codings: [ContentCoding], piece: Int, room: Int) throws -> (Data, complete: Bool) {
        let decoder = try #require(ContentDecoder(codings: codings))
        var output = Data()
        var offset = 0
        try data.withUnsafeBytes { bytes in
            while true {
                let end = min(bytes.count, offset + piece)
                var input = UnsafeRawBufferPointer(rebasing: bytes[offset..<end])
                var produced = 0
                repeat {
                    let before = output.count
                    produced = try decoder.decode(&input, capacity: room) { output.append(contentsOf: $0) }
                    #expect(output.count - before <= room)
                } while produced > 0 || !input.isEmpty
                offset = end
                if offset == bytes.count { break }
            }
        }
        return (output, decoder.isComplete)
    }

    @Test("whole or byte by byte, any output room: the same bytes, complete only at the end")
    func incremental() throws {
        let cases = Self.encoded()
        #expect(cases.count == 6, "zlib, brotli or zstd is missing")
        for (name, codings, data) in cases {
            for (piece, room) in [(data.count, 1 << 20), (1, 7), (3, 1), (4096, 65536)] {
                let (output, complete) = try Self.decode(data, codings, piece: piece, room: room)
                #expect(output == Self.text, "\(name) piece \(piece) room \(room)")
                #expect(complete, "\(name)")
                let (cut, cutComplete) = try Self.decode(data.prefix(data.count - 1), codings, piece: piece, room: room)
                #expect(!cutComplete, "\(name): \(cut.count) bytes of a cut stream called complete")
            }
        }
    }

    @Test("a zstd frame whose window is over 8 MB is refused (RFC 9659)")
    func zstdWindowLimit() throws {
        // Frame header: no checksum, Window_Descriptor exponent 14 (16 MiB), one empty raw last block.
        let frame = Data([0x28, 0xB5, 0x2F, 0xFD, 0x00, 14 << 3, 0x01, 0x00, 0x00])
        #expect(throws: ContentDecodingError.self) { try Self.decode(frame, [.zstd], piece: frame.count, room: 1024) }
        let small = Data([0x28, 0xB5, 0x2F, 0xFD, 0x00, 13 << 3, 0x01, 0x00, 0x00])
        let (output, complete) = try Self.decode(small, [.zstd], piece: small.count, room: 1024)
        #expect(output.isEmpty && complete)
    }
}
#endif
