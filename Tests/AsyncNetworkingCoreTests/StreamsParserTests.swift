@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// The pure parts of decoded streams: the line splitter and the Server-Sent Events parser, fed with
/// every way of cutting the input into chunks.
@Suite("Streams parsers (pure)")
struct StreamsParserTests {
    /// Every way of cutting `bytes` that the tests try: whole, byte by byte, and every cut in two.
    static func cuts(of bytes: [UInt8]) -> [[[UInt8]]] {
        var result: [[[UInt8]]] = [[bytes], bytes.map { [$0] }]
        for index in 1..<max(1, bytes.count) {
            result.append([Array(bytes[..<index]), Array(bytes[index...])])
        }
        return result
    }

    /// Splits `chunks` into lines, keeping a last unterminated one.
    static func split(_ chunks: [[UInt8]], maxLineLength: Int = 1 << 20) throws -> [String] {
        var splitter = LineSplitter(maxLineLength: maxLineLength)
        var lines: [String] = []
        for chunk in chunks {
            splitter.feed(Data(chunk))
            while let line = try splitter.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
        }
        if let last = splitter.finish() { lines.append(String(decoding: last, as: UTF8.self)) }
        return lines
    }

    /// Parses `chunks` as an event stream.
    static func events(_ chunks: [[UInt8]], maxEventSize: Int = 1 << 20) throws -> (events: [ServerSentEvent], parser: ServerSentEventParser) {
        var splitter = LineSplitter(maxLineLength: 1 << 20)
        var parser = ServerSentEventParser(maxEventSize: maxEventSize)
        var events: [ServerSentEvent] = []
        for chunk in chunks {
            splitter.feed(Data(chunk))
            while let line = try splitter.nextLine() {
                if let event = try parser.parse(line: line) { events.append(event) }
            }
        }
        _ = splitter.finish() // an unterminated last line is an unfinished event: never parsed
        return (events, parser)
    }

    // MARK: Lines

    @Test("LF, CR and CRLF end lines wherever the chunks are cut, even inside a CRLF")
    func lineEndings() throws {
        let text = Array("a\nb\r\nc\rd\n\n\r\r\ne".utf8)
        for chunks in Self.cuts(of: text) {
            #expect(try Self.split(chunks) == ["a", "b", "c", "d", "", "", "", "e"], "cut as \(chunks.map(\.count))")
        }
    }

    @Test("a CR at the end of a chunk ends its line at once; the LF after it is not a new line")
    func carriageReturnAtChunkEnd() throws {
        var splitter = LineSplitter(maxLineLength: 100)
        splitter.feed(Data("one\r".utf8))
        #expect(try splitter.nextLine() == Data("one".utf8))
        #expect(try splitter.nextLine() == nil)
        splitter.feed(Data("\ntwo\n".utf8))
        #expect(try splitter.nextLine() == Data("two".utf8))
        #expect(try splitter.nextLine() == nil)
        #expect(splitter.finish() == nil)
    }

    @Test("a UTF-8 sequence cut by a chunk boundary is whole in its line")
    func utf8AcrossChunks() throws {
        let text = Array("é😀ü\r\nx€\n".utf8)
        for chunks in Self.cuts(of: text) {
            #expect(try Self.split(chunks) == ["é😀ü", "x€"])
        }
    }

    @Test("a line longer than the limit throws, even before its terminator arrives; the limit itself is fine")
    func lineLimit() throws {
        #expect(try Self.split([Array("12345\n".utf8)], maxLineLength: 5) == ["12345"])
        var splitter = LineSplitter(maxLineLength: 5)
        splitter.feed(Data("123".utf8))
        #expect(try splitter.nextLine() == nil)
        splitter.feed(Data("456".utf8)) // 6 bytes and no end in sight
        let error = #expect(throws: NetworkingError.self) { try splitter.nextLine() }
        #expect(error?.kind == .streamElementTooLarge(limit: 5))
        #expect(splitter.bufferedBytes <= 6, "the splitter did not keep growing")
    }

    @Test("a chunk given as a slice of a larger Data is split from its own start")
    func sliceChunks() throws {
        let whole = Data("xxab\ncd\nyy".utf8)
        var splitter = LineSplitter(maxLineLength: 10)
        splitter.feed(whole[2..<8])
        #expect(try splitter.nextLine() == Data("ab".utf8))
        #expect(try splitter.nextLine() == Data("cd".utf8))
        #expect(try splitter.nextLine() == nil)
    }

    // MARK: Server-Sent Events (the WHATWG examples and rules)

    @Test("data lines are joined with LF")
    func dataJoined() throws {
        for chunks in Self.cuts(of: Array("data: YHOO\ndata: +2\ndata: 10\n\n".utf8)) {
            #expect(try Self.events(chunks).events == [ServerSentEvent(data: "YHOO\n+2\n10")])
        }
    }

    @Test("comments, id and an id reset; an event the stream ends in is not dispatched")
    func idsAndTrailingEvent() throws {
        let text = Array(": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n".utf8)
        for chunks in Self.cuts(of: text) {
            let (events, parser) = try Self.events(chunks)
            #expect(events == [ServerSentEvent(data: "first event", id: "1"), ServerSentEvent(data: "second event", id: nil)])
            #expect(parser.lastEventID == "")
        }
        // With its blank line the third is dispatched, keeping the second space.
        let ended = try Self.events([Array("data:  third event\n\n".utf8)]).events
        #expect(ended == [ServerSentEvent(data: " third event")])
    }

    @Test("empty data fields: an empty event, an event of one LF, and nothing for a trailing field")
    func emptyData() throws {
        for chunks in Self.cuts(of: Array("data\n\ndata\ndata\n\ndata:".utf8)) {
            #expect(try Self.events(chunks).events == [ServerSentEvent(data: ""), ServerSentEvent(data: "\n")])
        }
    }

    @Test("CR and CRLF line endings, cut anywhere, including inside the CRLF")
    func sseLineEndings() throws {
        for chunks in Self.cuts(of: Array("event: add\r\ndata: 1\r\rdata: 2\r\n\r\n".utf8)) {
            #expect(try Self.events(chunks).events == [ServerSentEvent(event: "add", data: "1"), ServerSentEvent(data: "2")])
        }
    }

    @Test("the event type applies to one event; an empty type is message")
    func eventType() throws {
        let text = Array("event: add\ndata: a\n\ndata: b\n\nevent:\ndata: c\n\n".utf8)
        let events = try Self.events([text]).events
        #expect(events.map(\.event) == ["add", "message", "message"])
    }

    @Test("an id containing NUL is ignored; an id with no data is committed without an event")
    func idRules() throws {
        var text = Array("id: 1\ndata: a\n\nid: 2".utf8)
        text += [0] + Array("x\ndata: b\n\nid: 7\n\ndata: c\n\n".utf8)
        for chunks in Self.cuts(of: text) {
            let (events, parser) = try Self.events(chunks)
            #expect(events.map(\.id) == ["1", "1", "7"])
            #expect(parser.lastEventID == "7")
        }
    }

    @Test("retry takes ASCII digits only, applies at once, and is reported on its event")
    func retryRules() throws {
        let (events, parser) = try Self.events([Array("retry: 1500\n\nretry: 15x\nretry:\nretry: -1\nretry: 2000\ndata: x\n\nretry: 9 \n".utf8)])
        #expect(events == [ServerSentEvent(data: "x", retry: 2000)])
        #expect(parser.reconnectionTime == 2000)
        let alone = try Self.events([Array("retry: 750\n".utf8)]).parser
        #expect(alone.reconnectionTime == 750, "no blank line needed")
    }

    @Test("a byte order mark is skipped at the start of the stream only, even when cut")
    func byteOrderMark() throws {
        let text = [0xEF, 0xBB, 0xBF] + Array("data: a\n\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("data: b\n\ndata: c\n\n".utf8)
        for chunks in Self.cuts(of: text) {
            #expect(try Self.events(chunks).events.map(\.data) == ["a", "c"])
        }
    }

    @Test("unknown fields are ignored; a field name is the whole line without a colon; values are UTF-8 with replacement")
    func fields() throws {
        let text = Array("foo: bar\nData: no\ndata\n\n".utf8) + Array("data: é".utf8) + [0xFF] + Array("\n\n".utf8)
        for chunks in Self.cuts(of: text) {
            #expect(try Self.events(chunks).events.map(\.data) == ["", "é\u{FFFD}"])
        }
    }

    @Test("an event larger than the limit throws instead of growing")
    func eventLimit() throws {
        #expect(try Self.events([Array("data: 1234\n\n".utf8)], maxEventSize: 5).events.map(\.data) == ["1234"])
        let error = #expect(throws: NetworkingError.self) {
            try Self.events([Array("data: 1234\ndata: 5\n\n".utf8)], maxEventSize: 6)
        }
        #expect(error?.kind == .streamElementTooLarge(limit: 6))
    }

    @Test("restarting (a reconnection) keeps the last event ID and retry, drops the unfinished event")
    func restart() throws {
        var parser = ServerSentEventParser(maxEventSize: 100)
        for line in ["id: 4", "retry: 10", "", "data: lost"] { _ = try parser.parse(line: Data(line.utf8)) }
        parser.restart()
        #expect(try parser.parse(line: Data([0xEF, 0xBB, 0xBF] + Array("data: new".utf8))) == nil)
        #expect(try parser.parse(line: Data()) == ServerSentEvent(data: "new", id: "4"))
        #expect(parser.reconnectionTime == 10)
    }

    // MARK: Reconnection delays

    @Test("the reconnection delay: default, server retry, backoff with a cap, a larger server retry clamped to the cap")
    func delays() {
        let configuration = EventSource.Configuration(
            reconnectionTime: .seconds(3), backoffMultiplier: 2, maxReconnectionTime: .seconds(20),
            minimumReconnectionTime: .milliseconds(100)
        )
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 0) == .seconds(3))
        #expect(configuration.delay(serverRetry: 250, failedAttempts: 0) == .milliseconds(250))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 1) == .seconds(6))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 2) == .seconds(12))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 3) == .seconds(20))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 500) == .seconds(20))
        #expect(configuration.delay(serverRetry: 45_000, failedAttempts: 3) == .seconds(20), "clamped to the configured maximum")
        let flat = EventSource.Configuration(
            reconnectionTime: .milliseconds(100), backoffMultiplier: 1, minimumReconnectionTime: .milliseconds(100)
        )
        #expect(flat.delay(serverRetry: nil, failedAttempts: 9) == .milliseconds(100))
    }
}
