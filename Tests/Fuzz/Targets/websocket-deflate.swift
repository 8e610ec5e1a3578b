// Fuzz target: permessage-deflate receiving (RFC 7692): the connection machine with an inflater,
// compressed frames whose payload is any bytes, the sync tail, context takeover on or off, under
// a message-size limit picked by the input (a compression bomb must stop at the limit). The
// input also drives the compressor, whose output must inflate back to what went in.
//
// Properties: no trap or sanitizer report; no message passes the limit; fed whole or in pieces
// the machine reports the same messages and whether it failed; compress → inflate round-trips.
@testable import AsyncNetworkingCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let limit = input.pick([1, 125, 4096, 65_536, 1 << 20, Int.max])
    let flags = input.byte()
    var deflate = PerMessageDeflateParameters()
    deflate.serverNoContextTakeover = flags & 1 != 0
    deflate.clientNoContextTakeover = flags & 2 != 0
    deflate.clientMaxWindowBits = 9 + Int(flags >> 2) % 7
    let cut = input.byte()
    let bytes = input.restArray()
    if flags & 0x80 != 0 {
        // The sending side: what the compressor makes of these bytes inflates back to them.
        guard let deflater = WebSocketDeflater(windowBits: deflate.clientMaxWindowBits, noContextTakeover: deflate.clientNoContextTakeover),
              let inflater = WebSocketInflater(noContextTakeover: false) else { return 0 }
        var output: [UInt8] = []
        do {
            try inflater.inflate(deflater.compress(bytes), into: &output, limit: .max)
            try inflater.finishMessage(into: &output, limit: .max)
        } catch {
            preconditionFailure("the compressor's output does not inflate: \(error)")
        }
        precondition(output == bytes)
        return 0
    }
    let whole = webSocketOutcome([bytes[...]], limit: limit, deflate: deflate)
    let pieces = webSocketOutcome(chunks(bytes, size: cut == 0 ? 1 : cut), limit: limit, deflate: deflate)
    precondition(whole == pieces, "\(whole) vs \(pieces)")
    return 0
}
