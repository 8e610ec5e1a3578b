@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// High-ratio bodies ("bombs") decode with memory bounded by the transfer's
/// window, and `maxResponseBytes` (counting decoded bytes) ends each with `.responseTooLarge`.
@Suite("Content decoding: bombs", .serialized)
struct ContentDecodingBombTests {
    /// (name, Content-Encoding, body) of 1 GiB of zeros (brotli: 64 MiB, as no hand-made brotli
    /// bomb is at hand and compressing 1 GiB takes ~12 s here).
    static let bombs: [(String, String, Data)]? = {
        guard let br = ContentEncoders.brotliZeros(count: 64 << 20) else { return nil }
        let gigabyte = 1 << 30
        let member = ContentEncoders.gzipZeros(count: 64 << 20)
        return [
            ("zstd", "zstd", ContentEncoders.zstdZeros(count: gigabyte)),
            ("gzip", "gzip", ContentEncoders.gzipZeros(count: gigabyte)),
            ("gzip-members", "x-gzip", Data((0..<16).flatMap { _ in member })),
            ("deflate", "deflate", ContentEncoders.zlibZeros(count: gigabyte)),
            ("br", "br", br),
        ]
    }()

    @Test("maxResponseBytes ends a bomb of every coding with responseTooLarge")
    func bombsAreTooLarge() async throws {
        let bombs = try #require(Self.bombs, "brotli is missing")
        try await ContentDecodingTests.withEncodedServer { server, manager in
            let limit = 8 << 20
            for (name, coding, bytes) in bombs {
                server.serve(name, contentEncoding: coding, bytes)
                let options = TransferOptions(maxResponseBytes: Int64(limit))
                let error = await expectNetworkingError { try await manager.data(from: server.url(name), options: options) }
                #expect(error?.kind == .responseTooLarge(limit: Int64(limit)), "\(name): \(String(describing: error))")
            }
        }
    }

    @Test("a 256 MiB zstd body of 8 KiB streams whole; a reader that stops holds it back in bounded memory")
    func zstdBombStreamsWhole() async throws {
        let total = 256 << 20
        let policy = BufferPolicy(highWaterMark: 1 << 20, lowWaterMark: 256 << 10)
        try await ContentDecodingTests.withEncodedServer { server, manager in
            let wire = ContentEncoders.zstdZeros(count: total)
            #expect(wire.count < 9000)
            server.serve("bomb", contentEncoding: "zstd", wire)
            let (body, _) = try await manager.stream(for: URLRequest(url: server.url("bomb")), options: TransferOptions(buffer: policy))
            let channel = body.lifetime.channel
            var iterator = body.makeAsyncIterator()
            var received = try #require(try await iterator.next()).count
            if manager.transport == .curl {
                // The reader stopped: the transfer stops decoding at its window.
                #expect(await eventually {
                    let before = channel.bufferedBytes.memory
                    try? await Task.sleep(for: .milliseconds(200))
                    return channel.bufferedBytes.memory == before
                })
                #expect(channel.bufferedBytes.memory <= policy.highWaterMark + (1 << 20), "\(channel.bufferedBytes)")
                #expect(channel.bufferedBytes.spilled == 0)
            }
            var nonZero = false
            while let chunk = try await iterator.next() {
                received += chunk.count
                if chunk.first != 0 || chunk.last != 0 { nonZero = true }
            }
            #expect(received == total)
            #expect(!nonZero)
        }
    }
}
