@testable import TransportSeam
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

@Suite("Curl head parser")
struct CurlHeadParserTests {
    /// Feeds lines (CRLF appended) and returns every head completed.
    private func parse(_ lines: [String], into parser: inout CurlHeadParser) -> [ResponseHead] {
        lines.compactMap { parser.consume($0 + "\r\n") }
    }

    private func parse(_ lines: [String]) -> [ResponseHead] {
        var parser = CurlHeadParser()
        return parse(lines, into: &parser)
    }

    @Test("status lines of HTTP/1.0, 1.1 and 2 give code, version and reason")
    func statusLines() {
        let heads = [["HTTP/1.0 404 Not Found", ""], ["HTTP/1.1 200 OK", ""], ["HTTP/2 204", ""]].flatMap { parse($0) }
        #expect(heads.map(\.statusCode) == [404, 200, 204])
        #expect(heads.map(\.httpVersion) == ["HTTP/1.0", "HTTP/1.1", "HTTP/2"])
        #expect(heads.map(\.reasonPhrase) == ["Not Found", "OK", ""])
    }

    @Test("a head completes only at its blank line, and fields keep their order and spelling")
    func fieldsInOrder() {
        var parser = CurlHeadParser()
        #expect(parser.consume("HTTP/1.1 200 OK\r\n") == nil)
        #expect(parser.consume("Content-Type:  text/plain \r\n") == nil)
        #expect(parser.consume("content-length: 5\r\n") == nil)
        #expect(!parser.isComplete)
        let head = parser.consume("\r\n")
        #expect(parser.isComplete)
        #expect(head?.fields.map(\.name) == ["Content-Type", "content-length"])
        #expect(head?.value(of: "CONTENT-TYPE") == "text/plain")
        #expect(head?.headerFields == ["Content-Type": "text/plain", "content-length": "5"])
    }

    @Test("duplicate fields combine with \", \" under the first spelling; Set-Cookie values stay separate too")
    func duplicates() throws {
        let head = try #require(parse([
            "HTTP/1.1 200 OK", "Vary: Accept", "vary: Origin", "Set-Cookie: a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT",
            "Set-Cookie: b=2", "",
        ]).first)
        #expect(head.headerFields["Vary"] == "Accept, Origin")
        #expect(head.headerFields["vary"] == nil)
        #expect(head.setCookies == ["a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT", "b=2"])
        #expect(head.headerFields["Set-Cookie"] == "a=1; Expires=Wed, 21 Oct 2015 07:28:00 GMT, b=2")
        let url = URL(string: "http://example.com/")!
        let cookies = HTTPCookie.cookies(withResponseHeaderFields: head.headerFields, for: url)
        #expect(cookies.map(\.name).sorted() == ["a", "b"])
    }

    @Test("folded continuation lines join the previous field with one space")
    func folding() throws {
        let head = try #require(parse(["HTTP/1.1 200 OK", "X-Long: first", " second", "\tthird", "X-Next: n", ""]).first)
        #expect(head.value(of: "X-Long") == "first second third")
        #expect(head.value(of: "X-Next") == "n")
    }

    @Test("1xx interim heads are skipped; the final head has only its own fields")
    func interimSkipped() {
        let heads = parse([
            "HTTP/1.1 100 Continue", "", "HTTP/1.1 103 Early Hints", "Link: </a.css>; rel=preload", "",
            "HTTP/1.1 201 Created", "Location: /x", "",
        ])
        #expect(heads.count == 1)
        #expect(heads.first?.statusCode == 201)
        #expect(heads.first?.fields.map(\.name) == ["Location"])
    }

    @Test("a new request's status line replaces the previous head (curl's own authentication retry)")
    func replacement() {
        var parser = CurlHeadParser()
        let first = parse(["HTTP/1.1 401 Unauthorized", "WWW-Authenticate: Basic realm=\"x\"", ""], into: &parser)
        parser.beginRequest()
        let second = parse(["HTTP/1.1 200 OK", "Content-Length: 2", ""], into: &parser)
        #expect(first.map(\.statusCode) == [401])
        #expect(second.map(\.statusCode) == [200])
        #expect(second.first?.value(of: "WWW-Authenticate") == nil)
    }

    @Test("a head interrupted by a new status line is dropped")
    func interrupted() {
        let heads = parse(["HTTP/1.1 200 OK", "X-A: 1", "HTTP/1.1 500 Oops", "X-B: 2", ""])
        #expect(heads.count == 1)
        #expect(heads.first?.statusCode == 500)
        #expect(heads.first?.fields.map(\.name) == ["X-B"])
    }

    @Test("trailers after a completed head are ignored until the next status line")
    func trailersIgnored() {
        var parser = CurlHeadParser()
        let heads = parse(["HTTP/1.1 200 OK", "X-Ok: 1", ""], into: &parser)
        #expect(heads.first?.fields.map(\.name) == ["X-Ok"])
        #expect(parse(["X-Trailer: t", ""], into: &parser).isEmpty)
        #expect(parser.isComplete)
        #expect(parser.failure == nil)
    }

    @Test("an empty field value is kept; lines without CRLF parse the same")
    func emptyValue() {
        var parser = CurlHeadParser()
        _ = parser.consume("HTTP/1.1 200 OK")
        _ = parser.consume("X-Empty:")
        let head = parser.consume("")
        #expect(head?.value(of: "x-empty") == "")
    }

    @Test("raw bytes: UTF-8 decodes, other bytes fall back to Latin-1")
    func rawBytes() {
        var parser = CurlHeadParser()
        let lines: [[UInt8]] = [Array("HTTP/1.1 200 OK\r\n".utf8), Array("X-U: h\u{e9}\r\n".utf8), [0x58, 0x2D, 0x4C, 0x3A, 0x20, 0xE9, 0x0D, 0x0A], [0x0D, 0x0A]]
        var head: ResponseHead?
        for line in lines {
            head = line.withUnsafeBytes { parser.consume($0) } ?? head
        }
        #expect(head?.value(of: "X-U") == "h\u{e9}")
        #expect(head?.value(of: "X-L") == "\u{e9}")
    }

    @Test("the head becomes an HTTPURLResponse with its status, version and fields")
    func httpURLResponse() throws {
        let head = try #require(parse(["HTTP/2 200", "content-type: application/json", "x-a: 1", "x-a: 2", ""]).first)
        let url = URL(string: "https://example.com/a")!
        let response = try #require(head.makeHTTPURLResponse(url: url))
        #expect(response.statusCode == 200)
        #expect(response.url == url)
        #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(response.value(forHTTPHeaderField: "X-A") == "1, 2")
    }
}
