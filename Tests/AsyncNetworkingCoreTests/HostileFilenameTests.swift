@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// A server cannot choose a hidden or misleading download name.
@Suite struct HostileFilenameTests {
    static let flood = "a" + String(repeating: "\u{301}", count: 130)

    /// Checks the properties every sanitised name has.
    static func expectSafe(_ name: String?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let name else { return }
        #expect(!name.hasPrefix("."), "\(name.debugDescription)", sourceLocation: sourceLocation)
        #expect(!name.isEmpty && name.utf8.count <= 255, sourceLocation: sourceLocation)
        #expect(!name.contains("/") && !name.contains("\\"), sourceLocation: sourceLocation)
        #expect(!name.unicodeScalars.contains { $0.properties.generalCategory == .format }, sourceLocation: sourceLocation)
        var marks = 0
        for scalar in name.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                marks += 1
                #expect(marks <= SuggestedFilename.maxCombiningMarksPerBase, sourceLocation: sourceLocation)
            default: marks = 0
            }
        }
    }

    @Test func oneHugeGraphemeBeforeADotFileDoesNotLeaveTheDotFile() throws {
        for suffix in [".htaccess", ".bashrc"] {
            let name = try #require(SuggestedFilename.sanitize(Self.flood + suffix))
            Self.expectSafe(name)
            #expect(name == "a" + String(repeating: "\u{301}", count: 4) + suffix)
        }
        // Without the flood: a bare dot file loses its dot.
        #expect(SuggestedFilename.sanitize(".htaccess") == "htaccess")
        #expect(SuggestedFilename.sanitize(".bashrc") == "bashrc")
    }

    @Test func truncationNeverLeavesALeadingDot() throws {
        // Graphemes that survive the mark cap but still push the name past 255 bytes.
        for count in [60, 63, 64, 100] {
            let base = String(repeating: "\u{1F600}", count: count)  // 4 bytes each
            for suffix in [".htaccess", ".x", "..bashrc", ". .profile"] {
                let name = SuggestedFilename.sanitize(base + suffix)
                Self.expectSafe(name)
                #expect(name != nil)
            }
        }
        let dots = String(repeating: ".", count: 300) + "htaccess"
        #expect(SuggestedFilename.sanitize(dots) == "htaccess")
    }

    @Test func bidiAndFormatCharactersAreRemoved() throws {
        #expect(SuggestedFilename.sanitize("invoice\u{202E}fdp.exe") == "invoicefdp.exe")
        #expect(SuggestedFilename.sanitize("a\u{200B}b\u{2066}c\u{2069}\u{FEFF}.txt") == "abc.txt")
        #expect(SuggestedFilename.sanitize("line\u{2028}break.txt") == "linebreak.txt")
        #expect(SuggestedFilename.sanitize("\u{202E}\u{200F}.\u{202E}htaccess") == "htaccess")
    }

    @Test func namesThatSanitiseToNothingGetTheFallback() throws {
        for raw in ["\u{202E}", "\u{301}\u{301}", ". . .", "\u{200B}.\u{200B}."] {
            #expect(SuggestedFilename.sanitize(raw) == nil, "\(raw.debugDescription)")
        }
        let response = try #require(HTTPURLResponse(
            url: URL(string: "http://127.0.0.1/")!, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: ["Content-Disposition": "attachment; filename*=UTF-8''%E2%80%AE"]
        ))
        #expect(SuggestedFilename.make(for: response, requestURL: URL(string: "http://127.0.0.1/")) == SuggestedFilename.fallback)
    }

    @Test(arguments: [
        flood + ".htaccess",
        flood + ".bashrc",
        "invoice\u{202E}fdp.exe",
        "\u{202E}",
    ])
    func hostileNameEndToEnd(hostile: String) async throws {
        let encoded = hostile.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let disposition = "attachment; filename*=UTF-8''\(encoded)"
        let query = disposition.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let url = server.url("/response-headers?Content-Disposition=\(query)")
                let (file, _) = try await manager.download(from: url, to: .directory(directory))
                let name = file.lastPathComponent
                Self.expectSafe(name)
                #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
                #expect(TransfersSupport.contents(of: directory) == [name])
                #expect(try Data(contentsOf: file) == Data("ok".utf8))
            }
        }
    }
}
