// Fuzz target: the curl transport's response head and trailer parser (CurlHeadParser), with what
// reads the parsed head: Content-Length, the combined fields, Set-Cookie values, where the body
// ends (CurlResponseEnd) and the early-response raw-head splitter, the expected body length; and
// the chunked framing follower (CurlChunkedFraming) over the same bytes.
//
// Properties: no trap or sanitizer report; feeding the lines in one callback (as libcurl 7.88 does
// after a pause) or one line per callback gives the same heads, trailers and failure; the chunk
// framing reaches the same state whether the bytes come at once or one by one.
import Foundation
@testable import TransportSeam
@testable import CurlTransport
@testable import AsyncNetworkingCore

private func parse(_ bytes: [UInt8], linePerCall: Bool) -> (heads: [ResponseHead], trailers: [String], failure: String?) {
    var parser = CurlHeadParser()
    var heads: [ResponseHead] = []
    if linePerCall {
        var start = 0
        while start < bytes.count, parser.failure == nil {
            let end = bytes[start...].firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
            if let head = bytes[start..<end].withUnsafeBytes({ parser.consume($0) }) { heads.append(head) }
            start = end
        }
    } else {
        bytes.withUnsafeBytes { parser.consumeLines($0) { heads.append($0) } }
    }
    return (heads, parser.trailers.map { "\($0.name): \($0.value)" }, parser.failure)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let received = Int64(bitPattern: UInt64(input.byte()) << 56 | UInt64(input.byte()))
    let bytes = input.restArray()
    let whole = parse(bytes, linePerCall: false)
    let lines = parse(bytes, linePerCall: true)
    precondition(whole.heads == lines.heads && whole.trailers == lines.trailers && whole.failure == lines.failure)
    for head in whole.heads {
        precondition((100...999).contains(head.statusCode))
        if let length = head.contentLength { precondition(length >= 0) }
        _ = head.headerFields
        _ = head.setCookies
        _ = head.value(of: "Transfer-Encoding")
        _ = TransferState.expectedBodyLength(of: head, method: "GET")
        _ = CurlResponseEnd.bodyEnd(of: head, method: received & 1 == 0 ? "POST" : "HEAD")
        _ = CurlEarlyResponse.endsWithoutItsBody(head)
        _ = CurlBodyDecoding.forHead(head)
    }
    var atOnce = CurlChunkedFraming()
    bytes.withUnsafeBytes { atOnce.consume($0) }
    var byByte = CurlChunkedFraming()
    for byte in bytes { withUnsafeBytes(of: byte) { byByte.consume($0) } }
    precondition(atOnce == byByte)
    if let (lines, _) = CurlEarlyResponse.split(bytes) { precondition(lines.last == "\r\n" || lines.last == "\n") }
    return 0
}
