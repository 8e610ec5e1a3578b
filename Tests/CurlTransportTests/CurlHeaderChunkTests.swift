@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// libcurl 7.88 hands the header lines it buffered while a transfer was paused to the header
/// callback in ONE call (found by the pause-toggling loop test: "Content-Type: …\r\nETag: …\r\n…"
/// arrived as one 180-byte call and was refused as a field value with a CR in it). The rule: the
/// bytes of one header call are split after each LF, whatever their number, and each line is
/// judged alone.
@Suite("Curl header callbacks carrying several lines")
struct CurlHeaderChunkTests {
    private func feed(_ chunks: [String]) -> (heads: [ResponseHead], failure: String?) {
        var parser = CurlHeadParser()
        var heads: [ResponseHead] = []
        for chunk in chunks {
            var bytes = Array(chunk.utf8)
            bytes.withUnsafeMutableBytes { raw in
                parser.consumeLines(UnsafeRawBufferPointer(raw)) { heads.append($0) }
            }
        }
        return (heads, parser.failure)
    }

    @Test("a whole head in one call is the same head as line by line", arguments: [
        ["HTTP/1.1 200 OK\r\nContent-Type: a/b\r\nETag: \"x\"\r\nContent-Length: 3\r\n\r\n"],
        ["HTTP/1.1 200 OK\r\n", "Content-Type: a/b\r\nETag: \"x\"\r\n", "Content-Length: 3\r\n\r\n"],
        ["HTTP/1.1 200 OK\n", "Content-Type: a/b\nETag: \"x\"\nContent-Length: 3\n", "\n"],
        ["HTTP/1.1 200 OK\r\nContent-Type: a/b\r\n", "ETag: \"x\"\r\n", "Content-Length: 3\r\n", "\r\n"],
    ])
    func wholeHeadInOneCall(chunks: [String]) {
        let (heads, failure) = feed(chunks)
        #expect(failure == nil)
        #expect(heads.count == 1)
        #expect(heads.first?.statusCode == 200)
        #expect(heads.first?.fields.map(\.name) == ["Content-Type", "ETag", "Content-Length"])
        #expect(heads.first?.value(of: "etag") == "\"x\"")
        #expect(heads.first?.contentLength == 3)
    }

    @Test("an interim head and the final head in one call give only the final head")
    func interimAndFinalTogether() {
        let (heads, failure) = feed(["HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nLocation: /x\r\n\r\n"])
        #expect(failure == nil)
        #expect(heads.map(\.statusCode) == [201])
        #expect(heads.first?.value(of: "Location") == "/x")
    }

    @Test("a bad line inside a multi-line call is still refused, and nothing after it is taken")
    func badLineInsideIsRefused() {
        let (heads, failure) = feed(["HTTP/1.1 200 OK\r\nGood: 1\r\nBad: a\u{0B}b\r\nLater: 2\r\n\r\n"])
        #expect(failure != nil)
        #expect(heads.isEmpty)
    }

    @Test("a call without a final LF still counts as its last line")
    func lastLineWithoutLF() {
        let (heads, failure) = feed(["HTTP/1.1 204 No Content\r\nA: 1", "\r\n", "\r\n"])
        #expect(failure == nil)
        #expect(heads.map(\.statusCode) == [204])
    }
}
