import Foundation
import Testing
@testable import LoopbackServer

/// Pure parsing: no sockets.
@Suite struct HTTPParserTests {
    private func parse(_ text: String) -> HTTPParser.HeadResult {
        Array(text.utf8).withUnsafeBytes { HTTPParser.parseHead($0) }
    }

    private func complete(_ text: String) throws -> (RequestHead, Int) {
        guard case .complete(let head, let consumed) = parse(text) else {
            throw ClientError(description: "not complete: \(parse(text))")
        }
        return (head, consumed)
    }

    @Test func simpleGet() throws {
        let text = "GET /bytes/10?seed=1&x=a%20b HTTP/1.1\r\nHost: h\r\nX-Thing:  v  \r\n\r\n"
        let (head, consumed) = try complete(text + "NEXT")
        #expect(consumed == text.utf8.count)
        #expect(head.method == "GET")
        #expect(head.path == "/bytes/10")
        #expect(head.rawQuery == "seed=1&x=a%20b")
        #expect(head.query("x") == "a b")
        #expect(head.queryInt("seed") == 1)
        #expect(head.header("x-thing") == "v")
        #expect(head.isHTTP11 && head.keepAlive)
        #expect(head.bodyFraming == .none)
    }

    @Test func incompleteUntilBlankLine() {
        guard case .incomplete = parse("GET / HTTP/1.1\r\nHost: h\r\n") else { Issue.record("expected incomplete"); return }
        guard case .incomplete = parse("") else { Issue.record("expected incomplete"); return }
    }

    @Test func pipelinedLeavesTheRest() throws {
        let first = "POST /upload HTTP/1.1\r\nContent-Length: 3\r\n\r\n"
        let text = first + "abcGET /json HTTP/1.1\r\n\r\n"
        let (head, consumed) = try complete(text)
        #expect(consumed == first.utf8.count)
        #expect(head.bodyFraming == .length(3))
        let rest = String(text.utf8.dropFirst(consumed + 3))!
        let (second, _) = try complete(rest)
        #expect(second.path == "/json")
    }

    @Test func leadingEmptyLinesAndBareLF() throws {
        let (head, consumed) = try complete("\r\n\nGET /x HTTP/1.0\nConnection: keep-alive\n\n")
        #expect(head.path == "/x")
        #expect(!head.isHTTP11 && head.keepAlive)
        #expect(consumed == 43)
    }

    @Test func keepAliveRules() throws {
        #expect(try !complete("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").0.keepAlive)
        #expect(try !complete("GET / HTTP/1.0\r\n\r\n").0.keepAlive)
        #expect(try complete("GET / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n").0.expectsContinue)
    }

    @Test func framing() throws {
        #expect(try complete("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").0.bodyFraming == .chunked)
        #expect(try complete("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n").0.bodyFraming == .none)
        for bad in ["Content-Length: -1", "Content-Length: 1x", "Content-Length: 1\r\nContent-Length: 2", "Transfer-Encoding: gzip"] {
            guard case .invalid = parse("POST / HTTP/1.1\r\n\(bad)\r\n\r\n") else {
                Issue.record("accepted \(bad)")
                continue
            }
        }
    }

    @Test func malformedHeads() {
        for bad in ["GET /\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET / HTTP/1.1\r\nno colon here\r\n\r\n",
                    "GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", "G@T / HTTP/1.1\r\n\r\n"] {
            guard case .invalid = parse(bad) else {
                Issue.record("accepted \(bad.debugDescription)")
                continue
            }
        }
    }

    @Test func absoluteFormTarget() throws {
        let (head, _) = try complete("GET http://127.0.0.1:80/echo?a=1 HTTP/1.1\r\n\r\n")
        #expect(head.path == "/echo")
        #expect(head.query("a") == "1")
    }
}

@Suite struct ChunkedDecoderTests {
    /// Decodes `input` fed in pieces of `step` bytes; returns body and total consumed.
    private func decode(_ input: String, step: Int) throws -> (String, Int, Bool) {
        var decoder = ChunkedDecoder()
        var body: [UInt8] = []
        var consumed = 0
        let bytes = Array(input.utf8)
        var offset = 0
        while offset < bytes.count && !decoder.isFinished {
            let end = min(bytes.count, offset + step)
            let used = try bytes[offset..<end].withUnsafeBytes { piece in
                try decoder.decode(piece) { body.append(contentsOf: $0) }
            }
            consumed += used
            offset += used
            if used < end - (offset - used) { break } // finished inside this piece
        }
        return (String(decoding: body, as: UTF8.self), consumed, decoder.isFinished)
    }

    @Test(arguments: [1, 2, 3, 7, 100])
    func piecewise(step: Int) throws {
        let wire = "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: x\r\n\r\nNEXT"
        let (body, consumed, finished) = try decode(wire, step: step)
        #expect(body == "hello world")
        #expect(finished)
        #expect(consumed == wire.utf8.count - 4)
    }

    @Test func uppercaseHexAndBareLF() throws {
        let (body, _, finished) = try decode("A\nabcdefghij\n0\n\n", step: 4)
        #expect(body == "abcdefghij")
        #expect(finished)
    }

    @Test func malformed() {
        for bad in ["x\r\n", "\r\n", "3\r\nabcX", "0\r\n\rX", "fffffffffffffffff\r\n"] {
            #expect(throws: ChunkedDecoder.MalformedError.self) { try decode(bad, step: 100) }
        }
    }
}

@Suite struct RangeAndDateTests {
    @Test func ranges() {
        #expect(ByteRange.evaluate("bytes=0-9", length: 100) == .partial(start: 0, end: 9))
        #expect(ByteRange.evaluate("bytes=90-", length: 100) == .partial(start: 90, end: 99))
        #expect(ByteRange.evaluate("bytes=-10", length: 100) == .partial(start: 90, end: 99))
        #expect(ByteRange.evaluate("bytes=-1000", length: 100) == .partial(start: 0, end: 99))
        #expect(ByteRange.evaluate("bytes=50-1000", length: 100) == .partial(start: 50, end: 99))
        #expect(ByteRange.evaluate("bytes=100-", length: 100) == .unsatisfiable)
        #expect(ByteRange.evaluate("bytes=-0", length: 100) == .unsatisfiable)
        #expect(ByteRange.evaluate("bytes=0-", length: 0) == .unsatisfiable)
        #expect(ByteRange.evaluate("bytes=0-1,5-6", length: 100) == .full)
        #expect(ByteRange.evaluate("bytes=9-1", length: 100) == .full)
        #expect(ByteRange.evaluate("items=0-1", length: 100) == .full)
    }

    @Test func dates() {
        #expect(HTTPDate.format(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(epochSeconds: 1_700_000_000) == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 00:00:00 GMT") == 1_709_164_800)
        #expect(HTTPDate.parse("yesterday") == nil)
    }

    @Test func ifRange() {
        let date = HTTPDate.format(epochSeconds: 1_700_000_000)
        #expect(ByteRange.ifRangeMatches("\"b-1\"", etag: "\"b-1\"", lastModified: 1_700_000_000))
        #expect(!ByteRange.ifRangeMatches("W/\"b-1\"", etag: "\"b-1\"", lastModified: 1_700_000_000))
        #expect(!ByteRange.ifRangeMatches("\"b-2\"", etag: "\"b-1\"", lastModified: 1_700_000_000))
        #expect(ByteRange.ifRangeMatches(date, etag: "\"b-1\"", lastModified: 1_700_000_000))
        #expect(!ByteRange.ifRangeMatches(date, etag: "\"b-1\"", lastModified: 1_700_000_001))
    }
}

@Suite struct MultipartParserTests {
    @Test func parts() throws {
        let body = "preamble\r\n--XyZ\r\nContent-Disposition: form-data; name=\"field\"\r\n\r\nvalue\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a;b.txt\"\r\nContent-Type: text/plain\r\n\r\n"
            + "line1\r\nline2\r\n--XyZ--\r\n"
        let bytes = Array(body.utf8)
        let parts = try Multipart.parse(bytes, boundary: "XyZ")
        #expect(parts.count == 2)
        #expect(parts[0].name == "field" && parts[0].filename == nil)
        #expect(String(decoding: bytes[parts[0].content], as: UTF8.self) == "value")
        #expect(parts[1].filename == "a;b.txt" && parts[1].contentType == "text/plain")
        #expect(String(decoding: bytes[parts[1].content], as: UTF8.self) == "line1\r\nline2")
        #expect(Multipart.boundary(fromContentType: "multipart/form-data; boundary=\"XyZ\"") == "XyZ")
        #expect(Multipart.boundary(fromContentType: "text/plain") == nil)
    }

    @Test func malformed() {
        let cases = [
            "no boundary at all",
            "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue without end",
            "--XyZ\r\nX-Other: 1\r\n\r\nv\r\n--XyZ--",
        ]
        for text in cases {
            #expect(throws: Multipart.MalformedError.self) { try Multipart.parse(Array(text.utf8), boundary: "XyZ") }
        }
    }
}
