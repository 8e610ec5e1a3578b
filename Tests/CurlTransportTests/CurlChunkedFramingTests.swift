@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// The chunk framing the curl transport follows over libcurl's raw body bytes (`CurlChunkedFraming`):
/// when the last chunk has arrived (the body is complete) and when the trailer section's blank line
/// has (the message is), however the bytes are split; framing it cannot place stops it.
@Suite("Curl chunked framing")
struct CurlChunkedFramingTests {
    /// Feeds `text` in pieces of `step` bytes.
    private static func follow(_ text: String, step: Int = .max) -> CurlChunkedFraming {
        var framing = CurlChunkedFraming()
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + max(1, step))
            bytes[start..<end].withUnsafeBytes { framing.consume($0) }
            start = end
        }
        return framing
    }

    @Test("a body with trailers ends at the blank line, split anywhere", arguments: [1, 2, 3, 7, 1000])
    func completeAtTheBlankLine(step: Int) {
        let message = "5\r\nhello\r\nA;ext=1\r\n0123456789\r\n0\r\nX-A: 1\r\nX-B: 2\r\n\r\n"
        let framing = Self.follow(message, step: step)
        #expect(framing.lastChunkSeen)
        #expect(framing.isComplete)
        #expect(!framing.isInvalid)
    }

    @Test("the last chunk ends the body before its trailer section does")
    func lastChunkBeforeTrailers() {
        let framing = Self.follow("3\r\nabc\r\n0\r\nX-A: 1\r\n")
        #expect(framing.lastChunkSeen)
        #expect(!framing.isComplete)
        #expect(!Self.follow("3\r\nabc\r\n0").lastChunkSeen, "the size line has not ended yet")
    }

    @Test("LF alone ends lines, uppercase hex counts, a zero-length chunk ends the body")
    func lenientLines() {
        #expect(Self.follow("A\nabcdefghij\n0\n\n").isComplete)
        #expect(Self.follow("0\r\n\r\n").isComplete)
    }

    @Test("data that looks like framing is data")
    func dataIsNotFraming() {
        let framing = Self.follow("7\r\n0\r\n\r\nxx\r\n")
        #expect(!framing.lastChunkSeen)
        #expect(!framing.isComplete)
    }

    @Test("framing it cannot place stops it", arguments: [
        "zz\r\n", "3\r\nabcX\r\n", "11111111111111111\r\n",
    ])
    func invalid(_ text: String) {
        let framing = Self.follow(text)
        #expect(framing.isInvalid)
        #expect(!framing.lastChunkSeen)
    }

    @Test("a CR not followed by LF in a trailer line is noticed (libcurl cuts the line there)")
    func bareCR() {
        #expect(Self.follow("0\r\nX-A: a\rb\r\n\r\n").sawBareCRInTrailers)
        #expect(!Self.follow("0\r\nX-A: ab\r\n\r\n").sawBareCRInTrailers)
    }
}
