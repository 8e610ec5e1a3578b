@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// Rule: no number in a response head traps the curl transport — the status code (exactly three
/// digits), `Content-Length` where the early-response path reads it, and lines of any length —
/// at 0, Int.max, 2^63 − 1, 2^64 − 1, negative and as thousands of digits.
@Suite("Curl head numbers at their extremes")
struct CurlWireNumberTests {
    static let huge = String(repeating: "9", count: 5000)

    @Test(arguments: [
        ("HTTP/1.1 200 OK", 200), ("HTTP/1.1 999", 999), ("HTTP/1.1 100", nil) /* interim: no head */, ("HTTP/1.1 099 Low", nil),
        ("HTTP/1.1 2000 Weird", nil), ("HTTP/1.1 -20 X", nil), ("HTTP/1.1 9223372036854775807", nil),
        ("HTTP/1.1 \(huge)", nil), ("HTTP/2 204", 204), ("HTTP/\(huge) 200", nil), ("HTTP/1.1 +20 X", nil),
    ])
    func statusCodesAreThreeDigits(line: String, code: Int?) {
        var parser = CurlHeadParser()
        _ = parser.consume(line + "\r\n")
        let head = parser.consume("\r\n")
        #expect(head?.statusCode == code, "\(line.prefix(40))")
    }

    @Test func aFieldOfAMegabyteOfDigitsIsText() {
        var parser = CurlHeadParser()
        _ = parser.consume("HTTP/1.1 200 OK\r\n")
        _ = parser.consume("Content-Length: \(String(repeating: "9", count: 1 << 20))\r\n")
        let head = parser.consume("\r\n")
        #expect(head != nil)
        #expect(head?.contentLength == nil)
    }

    @Test(arguments: [
        "0", "-1", "9223372036854775807", "9223372036854775808", "18446744073709551615", "-9223372036854775808", huge, "+5", "",
    ])
    func responseEndReadsAnyContentLength(value: String) {
        let head = ResponseHead(statusCode: 200, httpVersion: "HTTP/1.1", fields: [(name: "Content-Length", value: value)])
        // Digits only that fit an Int64 are a length; anything else leaves the end to the connection.
        let digits = !value.isEmpty && value.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        let expected = (digits ? Int64(value) : nil).map(CurlResponseEnd.BodyEnd.length) ?? .connectionClose
        #expect(CurlResponseEnd.bodyEnd(of: head, method: "POST") == expected, "\(value.prefix(40))")
        #expect(CurlEarlyResponse.endsWithoutItsBody(head) == (expected == .connectionClose))
    }
}

/// Rule: the size of a trailer section is a number the server chooses; what the parser keeps of it
/// is bounded (300 KiB of trailer lines, as libcurl bounds a head) and the response stays complete.
@Suite("Curl trailer section size")
struct CurlTrailerSizeTests {
    @Test func aTrailerFloodKeepsAtMost300KiB() {
        var parser = CurlHeadParser()
        _ = parser.consume("HTTP/1.1 200 OK\r\n")
        _ = parser.consume("Transfer-Encoding: chunked\r\n")
        #expect(parser.consume("\r\n") != nil)
        let line = "X-T: " + String(repeating: "v", count: 90) + "\r\n"
        for _ in 0..<100_000 { _ = parser.consume(line) }
        #expect(parser.isComplete && parser.failure == nil)
        #expect(!parser.trailers.isEmpty)
        #expect(parser.trailers.count * line.utf8.count <= 300 << 10, "\(parser.trailers.count) trailers kept")
        // A new request on the handle (a retry) ends the section; its response starts a new count.
        parser.beginRequest()
        _ = parser.consume("HTTP/1.1 200 OK\r\n")
        _ = parser.consume("\r\n")
        _ = parser.consume("X-New: 1\r\n")
        #expect(parser.trailers.map(\.name) == ["X-New"])
    }
}
