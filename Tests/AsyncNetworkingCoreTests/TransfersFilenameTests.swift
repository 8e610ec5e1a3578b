@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// A server-suggested file name can never write outside the destination directory.
@Suite("Transfers suggested filenames")
struct TransfersFilenameTests {
    @Test(arguments: [
        ("../../etc/passwd", "passwd"),
        ("/etc/passwd", "passwd"),
        ("..\\..\\windows\\win.ini", "win.ini"),
        ("..", nil),
        ("../", nil),
        (".", nil),
        ("...", nil),
        (".bashrc", "bashrc"),
        ("a/b/../c.txt", "c.txt"),
        ("  report.pdf  ", "report.pdf"),
        ("evil\u{0}name\n.txt", "evilname.txt"),
        ("", nil),
    ] as [(String, String?)])
    func sanitizedNamesAreOneSafeComponent(raw: String, expected: String?) {
        let name = SuggestedFilename.sanitize(raw)
        #expect(name == expected)
        if let name {
            #expect(!name.contains("/") && !name.contains("\\") && !name.hasPrefix(".") && name != "..")
        }
    }

    @Test func longNamesAreCutKeepingTheExtension() throws {
        let name = try #require(SuggestedFilename.sanitize(String(repeating: "é", count: 300) + ".tar.gz"))
        #expect(name.utf8.count <= 255)
        #expect(name.hasSuffix(".gz"))
    }

    @Test func contentDispositionParametersAreParsed() {
        #expect(SuggestedFilename.filename(fromContentDisposition: #"attachment; filename="a b.txt""#) == "a b.txt")
        #expect(SuggestedFilename.filename(fromContentDisposition: #"attachment; filename=plain.bin"#) == "plain.bin")
        #expect(SuggestedFilename.filename(fromContentDisposition: #"attachment; filename="x;y.txt"; size=3"#) == "x;y.txt")
        #expect(SuggestedFilename.filename(fromContentDisposition: #"attachment; filename="fallback.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt"#) == "€ rates.txt")
        #expect(SuggestedFilename.filename(fromContentDisposition: #"attachment; filename="q\"uote.txt""#) == "q\"uote.txt")
        #expect(SuggestedFilename.filename(fromContentDisposition: "inline") == nil)
    }

    @Test(arguments: [
        #"attachment;%20filename="../../etc/passwd""#,
        #"attachment;%20filename="/etc/passwd""#,
        #"attachment;%20filename*=UTF-8''..%252F..%252Fescaped.txt"#,
        #"attachment;%20filename="..""#,
        #"attachment;%20filename="..\..\boot.ini""#,
    ])
    func hostileSuggestedNameIsContainedInTheDestinationDirectory(disposition: String) async throws {
        try await TransfersSupport.withDirectory { root in
            let directory = root.appendingPathComponent("inside", isDirectory: true)
            try await withServerAndManager { server, manager in
                let url = server.url("/response-headers?Content-Disposition=\(disposition)")
                let (file, _) = try await manager.download(
                    from: url, to: .directory(directory), options: DownloadOptions(createIntermediateDirectories: true)
                )
                #expect(file.deletingLastPathComponent().standardizedFileURL.path == directory.standardizedFileURL.path)
                #expect(try Data(contentsOf: file) == Data("ok".utf8))
                #expect(TransfersSupport.contents(of: root) == ["inside"], "nothing was written beside the directory")
                #expect(TransfersSupport.contents(of: directory) == [file.lastPathComponent])
                #expect(!file.lastPathComponent.hasPrefix("."))
            }
        }
    }

    @Test func nameFallsBackToTheURLsLastComponent() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let (file, _) = try await manager.download(from: server.url("/bytes/64"), to: .directory(directory))
                #expect(file.lastPathComponent == "64")
                let (second, _) = try await manager.download(
                    from: server.url("/bytes/64"), to: .directory(directory), options: DownloadOptions(replaceExisting: true)
                )
                #expect(second == file)
                let error = await expectNetworkingError {
                    try await manager.download(from: server.url("/bytes/64"), to: .directory(directory))
                }
                #expect(error?.kind == .downloadMoveFailed, "an existing file is not replaced")
                let kept = try #require(error?.fileURL)
                #expect(TransferFiles.size(of: kept) == 64, "the error says where the bytes are")
            }
        }
    }
}
