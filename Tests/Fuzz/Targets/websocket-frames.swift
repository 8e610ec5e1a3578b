// Fuzz target: the WebSocket frame decoder and connection machine (no compression): frame
// headers of every length form, fragmentation, control frames, close frames, UTF-8 validation,
// under a message-size limit picked by the input (1 byte … "no limit", Int.max).
//
// Properties: no trap or sanitizer report; fed in one slice or in pieces of 1…255 bytes, the
// machine reports the same messages, pongs and failure (1002, 1007 or 1009); no message passes
// the limit.
@testable import AsyncNetworkingCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limit = input.pick([1, 2, 125, 126, 65_535, 65_536, 1 << 20, Int.max - 10, Int.max - 9, Int.max])
    let cut = input.byte()
    let bytes = input.restArray()
    let whole = webSocketOutcome([bytes[...]], limit: limit)
    let pieces = webSocketOutcome(chunks(bytes, size: cut == 0 ? 1 : cut), limit: limit)
    precondition(whole == pieces, "\(whole) vs \(pieces)")
    return 0
}
