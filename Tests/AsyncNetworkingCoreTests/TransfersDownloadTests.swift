@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Downloads to files: events, destinations, options, error statuses, large bodies.
@Suite("Transfers downloads")
struct TransfersDownloadTests {
    @Test func downloadDeliversResponseProgressFileAndCompletionInOrder() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 1 << 20
                let target = directory.appendingPathComponent("one.bin")
                let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/bytes/\(count)?seed=3")), to: .file(target))
                let events = try await collectEvents(handle)
                let names = events.map(\.name).filter { $0 != "downloadProgress" }
                #expect(names == ["response", "downloaded", "completed"])
                let progress = events.compactMap(\.downloadProgressValue)
                #expect(TransfersSupport.isMonotonic(progress, endingAt: Int64(count)))
                #expect(progress.last?.expectedBytes == Int64(count))
                guard case .downloaded(let url) = events[events.count - 2] else { Issue.record("no file"); return }
                #expect(url == target)
                #expect(try TransfersSupport.checksum(ofFile: url) == TransfersSupport.checksum(seed: 3, count: count))
                #expect(TransfersSupport.contents(of: directory) == ["one.bin"], "no partial file or record is left")
                #expect(await manager.activeTransferCount == 0)
            }
        }
    }

    /// The 256 MiB test: a download checked byte for byte against the generated body (hashing it in
    /// the same pass), then the same file uploaded and checked against the server's checksum.
    @Test func largeDownloadAndUploadMatchTheirChecksums() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 256 << 20
                let (url, response) = try await manager.download(
                    from: server.url("/bytes/\(count)?seed=11"), to: .file(directory.appendingPathComponent("big.bin"))
                )
                #expect(response.statusCode == 200)
                let checksum = try #require(try TransfersSupport.verify(url, seed: 11, count: count), "the file is the body, byte for byte")

                var request = URLRequest(url: server.url("/upload"))
                request.httpMethod = "PUT"
                let (body, _) = try await manager.upload(for: request, fromFile: url)
                let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
                #expect(json["bytes"] as? Int == count)
                #expect(json["checksum"] as? String == String(checksum))
            }
        }
    }

    @Test(arguments: [404, 500])
    func errorStatusIsAnErrorCarryingTheResponseAndBodyAndWritesNoFile(status: Int) async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let error = await expectNetworkingError {
                    try await manager.download(from: server.url("/status/\(status)"), to: .directory(directory))
                }
                #expect(error?.kind == .unacceptableStatusCode(status))
                #expect(error?.statusCode == status)
                #expect(error?.body.map { String(decoding: $0, as: UTF8.self) } == "status \(status)")
                #expect(TransfersSupport.contents(of: directory).isEmpty, "neither the error page nor a partial file")
            }
        }
    }

    @Test func errorStatusOnTheEventStreamThrowsWithoutAResponseEvent() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let target = directory.appendingPathComponent("missing.bin")
                let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/status/404")), to: .file(target))
                var names: [String] = []
                let error = await expectNetworkingError {
                    for try await event in handle.events { names.append(event.name) }
                }
                #expect(error?.kind == .unacceptableStatusCode(404))
                #expect(!names.contains("response") && !names.contains("downloaded"))
                #expect(TransfersSupport.contents(of: directory).isEmpty)
            }
        }
    }

    @Test func existingDestinationFailsBeforeSendingUnlessReplaceExisting() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let target = directory.appendingPathComponent("kept.txt")
                try Data("mine".utf8).write(to: target)
                let error = await expectNetworkingError {
                    try await manager.download(from: server.url("/bytes/100?seed=1"), to: .file(target))
                }
                #expect(error?.kind == .fileWriteFailed)
                #expect(error?.fileURL == target)
                #expect(TransfersSupport.requests(server, path: "/bytes/100").isEmpty, "nothing was sent")
                #expect(try Data(contentsOf: target) == Data("mine".utf8))

                let (url, _) = try await manager.download(
                    from: server.url("/bytes/100?seed=1"), to: .file(target), options: DownloadOptions(replaceExisting: true)
                )
                #expect(try Data(contentsOf: url) == SeededBytes.data(seed: 1, offset: 0, count: 100))
                #expect(TransfersSupport.contents(of: directory) == ["kept.txt"])
            }
        }
    }

    @Test func missingDirectoryFailsBeforeSendingUnlessCreateIntermediateDirectories() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let target = directory.appendingPathComponent("a/b/c.bin")
                let error = await expectNetworkingError {
                    try await manager.download(from: server.url("/bytes/10"), to: .file(target))
                }
                #expect(error?.kind == .fileWriteFailed)
                #expect(server.requests.isEmpty)
                let (url, _) = try await manager.download(
                    from: server.url("/bytes/10"), to: .file(target), options: DownloadOptions(createIntermediateDirectories: true)
                )
                #expect(try Data(contentsOf: url) == BytePattern.data(offset: 0, count: 10))
            }
        }
    }

    /// Temporary download files made since `before` whose content is `body`.
    private static func leftovers(since before: [String], holding body: Data) -> [String] {
        let temporary = FileManager.default.temporaryDirectory
        let directories = [temporary, temporary.appendingPathComponent(TransferFiles.privateDirectoryName)]
        return Set(TransfersSupport.temporaryFiles(kinds: ["download", "copy"])).subtracting(before).filter { name in
            directories.contains { (try? Data(contentsOf: $0.appendingPathComponent(name))) == body }
        }
    }

    @Test func customDestinationIsGivenTheResponseAndSuggestedName() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let before = TransfersSupport.temporaryFiles(kinds: ["download", "copy"])
                let url = server.url("/response-headers?Content-Disposition=attachment;%20filename=%22report.csv%22")
                let (file, response) = try await manager.download(from: url, to: .custom { response, suggested in
                    directory.appendingPathComponent("\(response.statusCode)-\(suggested)")
                })
                #expect(response.statusCode == 200)
                #expect(file.lastPathComponent == "200-report.csv")
                #expect(try Data(contentsOf: file) == Data("ok".utf8))
                // Other tests running at the same time make (and may keep) temporary files of their
                // own: only a new one holding this body would be this download's leftover.
                #expect(await eventually { Self.leftovers(since: before, holding: Data("ok".utf8)).isEmpty }, "the partial file in the temporary directory was moved")
            }
        }
    }

    @Test func sameDestinationTwiceAtOnceIsRefused() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let target = directory.appendingPathComponent("once.bin")
                // Registered and holding its partial file, not started yet.
                let first = try await manager.downloadTask(
                    with: URLRequest(url: server.url("/bytes/1000")), to: .file(target),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                let error = await expectNetworkingError {
                    try await manager.download(from: server.url("/bytes/1000"), to: .file(target))
                }
                #expect(error?.kind == .unsupportedOperation)
                try await first.resume()
                _ = try await collectEvents(first)
                #expect(try Data(contentsOf: target) == BytePattern.data(offset: 0, count: 1000))
                #expect(TransfersSupport.requests(server, path: "/bytes/1000").count == 1)
            }
        }
    }
}
