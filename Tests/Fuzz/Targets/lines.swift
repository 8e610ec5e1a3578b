// Fuzz target: the line and JSON Lines decoders: the line splitter under a line limit picked by
// the input, and each line decoded as JSON Lines does (blank lines skipped) into JSONValue, the
// library's recursive JSON type (nesting, huge numbers, escapes, invalid UTF-8).
//
// Properties: no trap or sanitizer report; the lines do not depend on how the stream was cut
// (checked for a quarter of the inputs: whole against pieces, one byte at a time included); no
// line passes the limit.
import Foundation
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP

private func lines(_ pieces: [ArraySlice<UInt8>], maxLine: Int) -> (lines: [Data], failed: Bool) {
    var splitter = LineSplitter(maxLineLength: maxLine)
    var lines: [Data] = []
    do {
        for piece in pieces {
            splitter.feed(Data(piece))
            while let line = try splitter.nextLine() {
                precondition(line.count <= maxLine)
                lines.append(line)
            }
        }
    } catch {
        return (lines, true)
    }
    if let last = splitter.finish() { lines.append(last) }
    return (lines, false)
}

private let decoder = JSONDecoder()
/// As parameters are read back: numbers a Double cannot hold exactly become Decimals.
private let exactDecoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.userInfo[JSONValue.keepsExactDecimals] = true
    return decoder
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let maxLine = input.pick([1, 8, 64, 4096, 1 << 22])
    let cut = input.byte()
    let bytes = input.restArray()
    let pieces = lines(chunks(bytes, size: cut), maxLine: maxLine)
    if cut & 6 == 0 { // a quarter of the inputs: cut or whole, the same lines (a second pass costs a run)
        let whole = lines([bytes[...]], maxLine: maxLine)
        precondition(whole.failed == pieces.failed && whole.lines == pieces.lines)
    }
    // Each line as JSON Lines reads it. Nesting is capped at 64 here: deeper documents spend the
    // run's time in Foundation's JSONDecoder (which refuses more than 512 levels), not in this
    // package's code.
    for line in pieces.lines where !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
        guard line.lazy.filter({ $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }).count <= 64 else { continue }
        if let value = try? (cut & 1 == 0 ? decoder : exactDecoder).decode(JSONValue.self, from: line) {
            _ = value.hashValue
            _ = value.intValue
        }
    }
    return 0
}
