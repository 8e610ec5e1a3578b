import Foundation
import Testing
@testable import LoopbackServer

/// Rule: the loopback server's parsers never trap on what a client sends — chunk sizes (any
/// number of hex digits), `Content-Length`, `Range` bounds, multipart boundaries and part sizes —
/// at 0, Int.max, 2^63 − 1, 2^64 − 1, negative and thousands of digits.
@Suite("Loopback server wire numbers at their extremes")
struct LoopbackWireNumberTests {
    static let huge = String(repeating: "9", count: 5000)

    @Test(arguments: [
        "0", "1", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff", "10000000000000000",
        String(repeating: "f", count: 15), String(repeating: "f", count: 16), String(repeating: "0", count: 5000) + "1", "-1", "+1",
    ])
    func chunkSizesOfAnyLength(size: String) {
        var decoder = ChunkedDecoder()
        let bytes = Array("\(size)\r\nabc".utf8)
        var received = 0
        let used = try? bytes.withUnsafeBytes { try decoder.decode($0) { received += $0.count } }
        #expect(received <= 3)
        if let used { #expect(used <= bytes.count) }
    }

    @Test(arguments: [
        "0", "-1", "9223372036854775807", "9223372036854775808", "18446744073709551615", huge, "+5", "1e3",
    ])
    func contentLengthOfAnyValue(value: String) {
        let text = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \(value)\r\n\r\n"
        _ = Array(text.utf8).withUnsafeBytes { HTTPParser.parseHead($0) }
    }

    @Test(arguments: [
        "bytes=0-9223372036854775807", "bytes=9223372036854775807-", "bytes=-9223372036854775807", "bytes=-\(huge)",
        "bytes=\(huge)-", "bytes=0-18446744073709551615", "bytes=-0", "bytes=+5-", "bytes=5--1", "bytes=-",
    ])
    func rangeBoundsOfAnyValue(header: String) {
        for length in [0, 1, 100, Int.max] {
            if case .partial(let start, let end) = ByteRange.evaluate(header, length: length) {
                #expect(start >= 0 && start <= end && end < length, "\(header.prefix(40)) of \(length)")
            }
        }
    }

    @Test(arguments: ["", "-", "--", "a", String(repeating: "b", count: 5000), "\"q\"", "\u{0}"])
    func multipartBoundariesOfAnyShape(boundary: String) {
        let body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--\(boundary)--\r\n".utf8)
        _ = Multipart.boundary(fromContentType: "multipart/form-data; boundary=\(boundary)")
        if let parts = try? Multipart.parse(body, boundary: boundary) {
            for part in parts { #expect(part.content.lowerBound >= 0 && part.content.upperBound <= body.count) }
        }
        for cut in [0, 1, body.count / 2, body.count - 1] {
            _ = try? Multipart.parse(Array(body[..<cut]), boundary: boundary)
        }
    }
}
