@testable import AsyncNetworkingTestSupport

/// The header-line rule (no CR, LF or NUL in a name or value; names are tokens), on the one place the library writes header lines into
/// a body: multipart part headers never carry a control character other than HTAB.
@Suite("Multipart part headers: no control characters")
struct MultipartHeaderRulesTests {
    @Test("custom part headers and MIME types lose every control character but HTAB", arguments: [
        "a\r\nInjected: yes", "a\u{0B}b", "a\u{0C}b", "a\u{0}b", "a\u{7F}b", "a\u{1B}b", "a\rb",
    ])
    func controlsRemoved(value: String) throws {
        var form = MultipartFormData(boundary: "BOUNDARY")
        form.append(Data("x".utf8), headers: ["X-Value": value, "X-Tab": "t\tu"])
        form.append(Data("y".utf8), name: "file", filename: "f.bin", mimeType: "text/plain" + value)
        let text = String(decoding: try form.encoded(), as: UTF8.self)
        let heads = text.components(separatedBy: "\r\n\r\n").dropLast()
        for head in heads {
            let lines = head.components(separatedBy: "\r\n")
            for line in lines {
                #expect(!line.unicodeScalars.contains { $0 != "\t" && ($0.value < 0x20 || $0.value == 0x7F) }, "\(line.debugDescription)")
            }
        }
        #expect(text.contains("X-Tab: t\tu"))
        #expect(!text.contains("\r\nInjected: yes"))
    }
}
