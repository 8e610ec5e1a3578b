// Fuzz target: suggested file names: Content-Disposition's filename and filename* (RFC 6266,
// RFC 8187 percent-decoding, quoted strings with escapes), then the sanitizing that makes a safe
// file name of it (path separators, control and format characters, combining-mark floods, dot
// files, 255 UTF-8 bytes), and the fallback to the URL's last path component.
//
// Properties: no trap or sanitizer report; a suggested name is non-empty, at most 255 UTF-8
// bytes, holds no `/`, `\`, NUL or other control character, and does not start with a dot.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import AsyncNetworkingCore

private func checkSafe(_ name: String) {
    precondition(!name.isEmpty && name.utf8.count <= 255, "\(name.utf8.count) bytes")
    precondition(!name.contains("/") && !name.contains("\\") && !name.hasPrefix("."))
    precondition(!name.unicodeScalars.contains { $0.properties.generalCategory == .control })
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let choice = input.byte()
    let text = input.restText()
    let raw = SuggestedFilename.filename(fromContentDisposition: text)
    if let raw, let name = SuggestedFilename.sanitize(raw) { checkSafe(name) }
    if let name = SuggestedFilename.sanitize(text) { checkSafe(name) }
    if choice & 7 == 0 {
        // Through a response, as downloads name their files (Foundation may refuse the field); 1
        // input in 8, as making an HTTPURLResponse costs more than the rest of the run.
        let url = URL(string: "http://127.0.0.1/dir/file.bin")!
        if let response = HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Content-Disposition": text]) {
            checkSafe(SuggestedFilename.make(for: response, requestURL: url))
        }
    }
    return 0
}
