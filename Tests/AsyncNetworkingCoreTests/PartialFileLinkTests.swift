@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// A link planted where a download's partial file goes is never followed.
@Suite struct PartialFileLinkTests {
    static let victimText = Data("victim: must not change\n".utf8)

    /// Every name the library could choose for the partial file of a `.custom` download of `url`
    /// with `temporaryDirectory` = `root`: the shared directory itself (before the fix) and the
    /// per-user directory (after it).
    static func candidatePartialURLs(for url: URL, in root: URL) -> [URL] {
        let name = "\(TransferFiles.temporaryPrefix)download-\(TransferFiles.key(for: url))\(TransferFiles.partialSuffix)"
        return [
            root.appendingPathComponent(name),
            root.appendingPathComponent(TransferFiles.privateDirectoryName, isDirectory: true).appendingPathComponent(name),
        ]
    }

    static func plantVictim(in root: URL) throws -> URL {
        let victim = root.appendingPathComponent("victim.txt")
        try victimText.write(to: victim)
        return victim
    }

    @Test func linkAtEveryPossiblePartialNameIsNotFollowed() async throws {
        try await TransfersSupport.withDirectory { root in
            let victim = try Self.plantVictim(in: root)
            try await withServerAndManager { server, manager in
                let url = server.url("/bytes/5000?seed=4")
                try FileManager.default.createDirectory(
                    at: root.appendingPathComponent(TransferFiles.privateDirectoryName), withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
                for candidate in Self.candidatePartialURLs(for: url, in: root) {
                    try FileManager.default.createSymbolicLink(at: candidate, withDestinationURL: victim)
                }
                let target = root.appendingPathComponent("out.bin")
                do {
                    let (file, _) = try await manager.download(
                        from: url, to: .custom { _, _ in target }, options: DownloadOptions(temporaryDirectory: root)
                    )
                    #expect(try TransfersSupport.verify(file, seed: 4, count: 5000) != nil)
                } catch let error as NetworkingError {
                    #expect(error.kind == .fileWriteFailed, "\(error)")
                }
                #expect(try Data(contentsOf: victim) == Self.victimText)
            }
        }
    }

    @Test func linkAtTheOldSharedNameIsIgnored() async throws {
        try await TransfersSupport.withDirectory { root in
            let victim = try Self.plantVictim(in: root)
            try await withServerAndManager { server, manager in
                let url = server.url("/bytes/5000?seed=5")
                let shared = try #require(Self.candidatePartialURLs(for: url, in: root).first)
                try FileManager.default.createSymbolicLink(at: shared, withDestinationURL: victim)
                let target = root.appendingPathComponent("out.bin")
                let (file, _) = try await manager.download(
                    from: url, to: .custom { _, _ in target }, options: DownloadOptions(temporaryDirectory: root)
                )
                #expect(file == target)
                #expect(try TransfersSupport.verify(file, seed: 5, count: 5000) != nil)
                #expect(try Data(contentsOf: victim) == Self.victimText)
                var info = stat()
                let privatePath = root.appendingPathComponent(TransferFiles.privateDirectoryName).path
                #expect(lstat(privatePath, &info) == 0)
                #expect(info.st_mode & S_IFMT == S_IFDIR && info.st_mode & 0o777 == 0o700)
            }
        }
    }

    @Test func privateDirectoryThatIsALinkIsRefused() async throws {
        try await TransfersSupport.withDirectory { root in
            let elsewhere = root.appendingPathComponent("attacker", isDirectory: true)
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: root.appendingPathComponent(TransferFiles.privateDirectoryName), withDestinationURL: elsewhere
            )
            try await withServerAndManager { server, manager in
                let error = await expectNetworkingError {
                    try await manager.download(
                        from: server.url("/bytes/100"), to: .custom { _, _ in root.appendingPathComponent("out.bin") },
                        options: DownloadOptions(temporaryDirectory: root)
                    )
                }
                #expect(error?.kind == .fileWriteFailed)
                #expect(TransfersSupport.contents(of: elsewhere).isEmpty)
            }
        }
    }

    @Test func linkAtAFileDestinationsPartialNameIsNotFollowed() async throws {
        try await TransfersSupport.withDirectory { root in
            let victim = try Self.plantVictim(in: root)
            let destination = root.appendingPathComponent("out.bin")
            try FileManager.default.createSymbolicLink(
                at: URL(fileURLWithPath: destination.path + TransferFiles.partialSuffix), withDestinationURL: victim
            )
            try await withServerAndManager { server, manager in
                let error = await expectNetworkingError {
                    try await manager.download(from: server.url("/bytes/100"), to: .file(destination))
                }
                #expect(error?.kind == .fileWriteFailed)
                let victimNow = try Data(contentsOf: victim)
                #expect(victimNow == Self.victimText)
                #expect(!TransfersSupport.contents(of: root).contains("out.bin"))
            }
        }
    }
}
