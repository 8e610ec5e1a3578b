@testable import AsyncNetworkingTestSupport

/// The decoded sequences over any `AsyncSequence` of `Data`, without a server.
@Suite("Streams sequences over Data chunks")
struct StreamsSequenceTests {
    struct Reading: Codable, Equatable, Sendable { var index: Int; var text: String }

    /// The bytes as chunks of `size` (1 = byte by byte).
    static func chunks(_ bytes: [UInt8], size: Int) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var offset = 0
            while offset < bytes.count {
                continuation.yield(Data(bytes[offset..<min(bytes.count, offset + size)]))
                offset += size
            }
            continuation.finish()
        }
    }

    /// A sequence of chunks that then throws.
    struct Failing: AsyncSequence, Sendable {
        typealias Element = Data
        let chunks: [Data]
        struct Boom: Error {}
        struct AsyncIterator: AsyncIteratorProtocol {
            var chunks: [Data]
            mutating func next() async throws -> Data? {
                if chunks.isEmpty { throw Boom() }
                return chunks.removeFirst()
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
    }

    @Test("lines, with every chunk size from 1 byte up, and the last line kept without a terminator", arguments: [1, 2, 3, 7, 64])
    func lines(size: Int) async throws {
        var lines: [String] = []
        for try await line in Self.chunks(Array("α\r\nβ\rγ\n\nend".utf8), size: size).lines { lines.append(line) }
        #expect(lines == ["α", "β", "γ", "", "end"])
    }

    @Test("JSON Lines decode one value per line, skipping blank lines, whatever the chunk size", arguments: [1, 5, 4096])
    func jsonLines(size: Int) async throws {
        let values = (0..<200).map { Reading(index: $0, text: String(repeating: "é", count: $0 % 7)) }
        var text = ""
        for value in values {
            text += String(decoding: try JSONEncoder().encode(value), as: UTF8.self) + (value.index % 3 == 0 ? "\r\n" : "\n")
            if value.index % 50 == 0 { text += "  \n" }
        }
        var decoded: [Reading] = []
        for try await value in Self.chunks(Array(text.utf8), size: size).jsonLines(of: Reading.self) { decoded.append(value) }
        #expect(decoded == values)
    }

    @Test("a line that is not the type fails with its line number and the line")
    func jsonLinesError() async throws {
        let body = Self.chunks(Array("{\"index\":1,\"text\":\"a\"}\n\n{\"index\":\"x\"}\n".utf8), size: 4)
        var iterator = body.jsonLines(of: Reading.self).makeAsyncIterator()
        #expect(try await iterator.next() == Reading(index: 1, text: "a"))
        let error = await expectNetworkingError { try await iterator.next() }
        #expect(error?.kind == .responseSerializationFailed)
        #expect(error?.message.contains("line 3") == true)
        #expect(error?.body == Data("{\"index\":\"x\"}".utf8))
        #expect(error?.underlyingError is DecodingError)
    }

    @Test("a line that never ends fails at the limit, holding no more than the limit plus a chunk")
    func endlessLine() async throws {
        let body = AsyncStream<Data> { continuation in
            for _ in 0..<1000 { continuation.yield(Data(repeating: 0x41, count: 1024)) }
            continuation.finish()
        }
        let error = await expectNetworkingError { for try await _ in body.lines(maxLineLength: 10_000) {} }
        #expect(error?.kind == .streamElementTooLarge(limit: 10_000))
    }

    @Test("server-sent events over chunks of any size", arguments: [1, 2, 9, 1000])
    func serverSentEvents(size: Int) async throws {
        let text = "\u{FEFF}: hello\r\nevent: add\r\nid: 1\r\ndata: one\r\ndata: two\r\n\r\nid: 2\ndata: three\n\ndata: unfinished"
        var events: [ServerSentEvent] = []
        for try await event in Self.chunks(Array(text.utf8), size: size).serverSentEvents() { events.append(event) }
        #expect(events == [ServerSentEvent(event: "add", data: "one\ntwo", id: "1"), ServerSentEvent(data: "three", id: "2")])
    }

    @Test("an error of the body is thrown as a NetworkingError keeping the original")
    func baseError() async throws {
        let body = Failing(chunks: [Data("a\nb".utf8)])
        var lines: [String] = []
        let error = await expectNetworkingError { for try await line in body.lines { lines.append(line) } }
        #expect(lines == ["a"])
        #expect(error?.underlyingError is Failing.Boom)
    }
}
