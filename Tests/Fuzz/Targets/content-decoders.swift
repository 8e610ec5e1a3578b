// Fuzz target: the content decoders (ANContentDecoder.c over zlib, libbrotlidec and libzstd, and
// the Swift stages around them): a Content-Encoding picked by the input (gzip, x-gzip, deflate as
// zlib or raw, br, zstd, stacked, or too many stacked), then the body fed in pieces with output
// room picked by the input, as the curl transport's window gives it.
//
// Properties: no trap or sanitizer report (the C shim is instrumented); a step never yields more
// than the room it was given; the decoder fails, or reaches a state it can report.
import Foundation
@testable import CurlTransport

private let encodings = [
    "gzip", "x-gzip", "deflate", "br", "zstd", "gzip, br", "deflate, gzip", "identity, zstd", "gzip, gzip, gzip, gzip, gzip",
    "gzip, gzip, gzip, gzip, gzip, gzip", "br, zstd, gzip", "unknown", "",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let encoding = input.pick(encodings)
    let room = input.pick([1, 7, 4096, 65_536, 256 << 10])
    let cut = Int(input.byte()) * 64 + 1
    guard let codings = ContentCoding.codings(contentEncoding: [encoding]), let decoder = ContentDecoder(codings: codings) else {
        return 0
    }
    // At most 20,000 decode steps per input: a bomb at one byte of room would otherwise take
    // minutes (the transport bounds it with the window and maxResponseBytes instead).
    var produced = 0
    var steps = 0
    var pending = input.rest()
    while !pending.isEmpty, steps < 20_000 {
        var piece = UnsafeRawBufferPointer(rebasing: pending.prefix(cut))
        let before = piece.count
        while steps < 20_000 {
            steps += 1
            let yielded: Int
            do {
                yielded = try decoder.decode(&piece, capacity: room) { produced += $0.count }
            } catch {
                return 0
            }
            precondition(yielded <= room && produced >= 0)
            if yielded == 0 { break }
        }
        let used = before - piece.count
        if used == 0 { break } // needs room it was not given, or stuck: the transport reports that
        pending = UnsafeRawBufferPointer(rebasing: pending[(pending.startIndex + used)...])
    }
    _ = decoder.isComplete
    return 0
}
