@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// RFC 9110 §5 / RFC 9112 §2–5 as the curl head parser applies them:
/// only LF or CR LF ends a line, names are tokens, values hold no control character but HTAB,
/// status lines are `HTTP/x.y NNN[ reason]`.
@Suite("Curl head parser: line, field and status-line rules")
struct CurlHeadParserRulesTests {
    /// Feeds each line as bytes (CR LF appended) and returns the heads completed and the failure.
    private func feed(_ lines: [String]) -> (heads: [ResponseHead], failure: String?) {
        var parser = CurlHeadParser()
        var heads: [ResponseHead] = []
        for line in lines {
            let bytes = Array((line + "\r\n").utf8)
            if let head = bytes.withUnsafeBytes({ parser.consume($0) }) { heads.append(head) }
        }
        return (heads, parser.failure)
    }

    @Test("a line holding only a character that is not a line end is not the blank line", arguments: [
        "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}", "\r",
    ])
    func notALineEnd(line: String) {
        let result = feed(["HTTP/1.1 200 OK", "X-A: 1", line, "X-B: 2", ""])
        #expect(result.heads.isEmpty, "the head must not end at \(line.unicodeScalars.map { $0.value })")
        #expect(result.failure != nil)
    }

    @Test("a control character other than HTAB in a value refuses the head", arguments: [
        "a\u{0B}b", "a\u{0C}", "a\rX-B: b", "a\u{0}b", "\u{7F}", "a\u{1}", "a\u{1B}[31m", "\u{0B}",
    ])
    func controlInValue(value: String) {
        let result = feed(["HTTP/1.1 200 OK", "X-A: " + value, "Content-Length: 2", ""])
        #expect(result.heads.isEmpty)
        #expect(result.failure?.contains("control character") == true)
    }

    @Test("a control character in a folded continuation refuses the head")
    func controlInFold() {
        let result = feed(["HTTP/1.1 200 OK", "X-A: 1", " 2\u{0B}", ""])
        #expect(result.heads.isEmpty)
        #expect(result.failure != nil)
    }

    @Test("HTAB, obs-text and non-ASCII text stay in a value as sent")
    func allowedValues() throws {
        let values = ["a\tb", "h\u{E9}", "x\u{85}y", "line\u{2028}sep", "\"quoted\" (comment) ~!"]
        let result = feed(["HTTP/1.1 200 OK"] + values.enumerated().map { "X-\($0.offset): \($0.element)" } + [""])
        let head = try #require(result.heads.first)
        #expect(result.failure == nil)
        #expect(head.fields.map(\.value) == values)
    }

    @Test("a field name that is not a token refuses the head", arguments: [
        "X A: 1", "X-A : 1", "X\tA: 1", "(x): 1", "X\u{0}: 1", ": no name", "X\u{E9}: 1", "no colon here",
    ])
    func badNames(line: String) {
        let result = feed(["HTTP/1.1 200 OK", line, ""])
        #expect(result.heads.isEmpty)
        #expect(result.failure != nil)
    }

    @Test("obsolete folding becomes one space; whitespace before the first field is skipped")
    func folding() throws {
        let result = feed(["HTTP/1.1 200 OK", "   ", "X-A: 1", " \t2", "\t3", ""])
        let head = try #require(result.heads.first)
        #expect(head.value(of: "X-A") == "1 2 3")
    }

    @Test("status lines RFC 9112 §4 allows", arguments: [
        ("HTTP/1.1 200", 200, "HTTP/1.1", ""), ("HTTP/1.1 200 ", 200, "HTTP/1.1", ""),
        ("HTTP/1.0 200 OK", 200, "HTTP/1.0", "OK"), ("HTTP/1.1 204 No Content", 204, "HTTP/1.1", "No Content"),
        ("HTTP/2 200 ", 200, "HTTP/2", ""), ("HTTP/1.1 599 \u{E9}t\u{E9}", 599, "HTTP/1.1", "\u{E9}t\u{E9}"),
        ("HTTP/1.1 200 O\tK", 200, "HTTP/1.1", "O\tK"),
    ])
    func acceptedStatusLines(line: String, code: Int, version: String, reason: String) throws {
        let result = feed([line, ""])
        let head = try #require(result.heads.first)
        #expect(head.statusCode == code)
        #expect(head.httpVersion == version)
        #expect(head.reasonPhrase == reason)
    }

    @Test("status lines RFC 9112 §4 refuses", arguments: [
        "Http/1.1 200 OK", "http/1.1 200 OK", "HTTP/1.1 2000 OK", "HTTP/1.1 20 OK", "HTTP/1.1 abc",
        "HTTP/1.1 099 Low", "HTTP/11 200 OK", "HTTP/1.1  200 OK", "HTTP/1.1 200OK", "HELLO THERE",
        "HTTP/1.1 200 O\u{0B}K", "HTTP/1.1 200 O\u{0}K", "HTTP/ 200 OK", "HTTPS/1.1 200 OK", "HTTP/1.x 200 OK",
    ])
    func refusedStatusLines(line: String) {
        let result = feed([line, "Content-Length: 0", ""])
        #expect(result.heads.isEmpty)
        #expect(result.failure != nil)
    }

    @Test("once refused, nothing more comes out, not even for a later valid head")
    func failureSticks() {
        let result = feed(["HTTP/1.1 200 OK", "X\u{0B}: 1", "", "HTTP/1.1 200 OK", ""])
        #expect(result.heads.isEmpty)
        #expect(result.failure != nil)
    }

    @Test("the failure names the rule, never the bytes of the field")
    func failureHoldsNoValue() {
        let result = feed(["HTTP/1.1 200 OK", "Authorization-Echo: secret\u{0B}token", ""])
        #expect(result.failure?.contains("secret") == false)
    }

    @Test("a bare LF ends a line like CR LF")
    func bareLF() throws {
        var parser = CurlHeadParser()
        var head: ResponseHead?
        for line in ["HTTP/1.1 200 OK\n", "X-A: 1\n", "\n"] {
            head = Array(line.utf8).withUnsafeBytes { parser.consume($0) } ?? head
        }
        #expect(try #require(head).value(of: "X-A") == "1")
    }
}
