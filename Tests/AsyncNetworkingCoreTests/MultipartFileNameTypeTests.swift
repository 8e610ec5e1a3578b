import Foundation
import Testing
@testable import AsyncNetworkingTestSupport

/// A part's type is inferred from its file name's extension without Foundation's
/// `NSString.pathExtension`, which traps on a name with a non-ASCII character before trailing
/// slashes (`"é///,//"`; found by the multipart fuzz target). A file name is the caller's, but it
/// often comes from elsewhere (an upload form, a peer): whatever it is, no trap.
@Suite("Multipart part types from file names")
struct MultipartFileNameTypeTests {
    @Test(arguments: [
        ("photo.png", "image/png"), ("dir.d/report.PDF", "application/pdf"), ("archive.tar.txt", "text/plain"),
        (".bashrc", "application/octet-stream"), ("noextension", "application/octet-stream"), ("trailing.", "application/octet-stream"),
        ("a/b.json/", "application/json"), ("é///,//", "application/octet-stream"), ("\u{FFFD}///,/////", "application/octet-stream"),
        ("/////", "application/octet-stream"), ("", "application/octet-stream"), ("naïve.csv", "text/csv"),
    ])
    func theTypeFollowsTheLastComponentsExtension(name: String, type: String) throws {
        var form = MultipartFormData(boundary: "b")
        form.append(Data("x".utf8), name: "f", filename: name)
        let text = String(decoding: try form.encoded(), as: UTF8.self)
        #expect(text.contains("Content-Type: \(type)\r\n"), "\(text.debugDescription)")
    }

    @Test func aFilePartNamedLikeTheTrapIsTypedToo() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("mp-\(UUID().uuidString).bin")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartFormData(boundary: "b")
        try form.append(fileAt: file, name: "f", filename: "é///,//")
        try form.append(stream: { InputStream(data: Data("y".utf8)) }, length: 1, name: "g", filename: "é///,//")
        let text = String(decoding: try form.encoded(), as: UTF8.self)
        #expect(text.components(separatedBy: "Content-Type: application/octet-stream\r\n").count == 3)
    }
}
