// Fuzz target: the loopback server's request reading (LoopbackServer, a product users run in
// their tests): the request head parser (request line, target forms, fields, Content-Length,
// Transfer-Encoding), the chunked body decoder (chunk sizes of any number of hex digits,
// extensions, trailers) fed in pieces, and Range headers against a body length picked by the input.
//
// Properties: no trap or sanitizer report; the decoder never reports more input used than it was
// given nor more body than the chunks declared; a satisfiable range lies inside the body.
@testable import LoopbackServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    let cut = input.byte()
    let bytes = input.restArray()
    switch mode % 3 {
    case 0:
        if case .complete(let head, let consumed) = bytes.withUnsafeBytes({ HTTPParser.parseHead($0) }) {
            precondition(consumed > 0 && consumed <= bytes.count)
            _ = head.bodyFraming
            _ = head.queryInt("n")
        }
    case 1:
        var decoder = ChunkedDecoder()
        var body = 0
        for piece in chunks(bytes, size: cut) {
            guard let used = try? piece.withUnsafeBytes({ try decoder.decode($0) { body += $0.count } }) else { return 0 }
            precondition(used >= 0 && used <= piece.count)
            if decoder.isFinished { break }
        }
        precondition(body <= bytes.count)
    default:
        let length = [0, 1, 100, 1 << 40, Int.max][Int(cut) % 5]
        if case .partial(let start, let end) = ByteRange.evaluate(String(decoding: bytes, as: UTF8.self), length: length) {
            precondition(start >= 0 && start <= end && end < length)
        }
    }
    return 0
}
