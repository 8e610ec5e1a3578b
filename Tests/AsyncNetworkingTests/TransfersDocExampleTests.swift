@testable import AsyncNetworkingTestSupport

/// The snippets of the README's Transfers section, compiled and run against the loopback server.
@Suite("Transfers doc examples")
struct TransfersDocExampleTests {
    @Test func docExamplesRun() async throws {
        try await TransfersSupport.withDirectory { root in
            try await withServerAndManager { server, manager in
                let url = server.url("/bytes/200000?seed=1")
                let target = root.appendingPathComponent("file.bin")
                let downloads = root.appendingPathComponent("downloads")
                let dir = root.appendingPathComponent("custom/nested")
                try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)

                let (file, _) = try await manager.download(from: url, to: .file(target))
                _ = try await manager.download(from: url, to: .directory(downloads))      // Content-Disposition name
                _ = try await manager.download(from: url, to: .custom { _, name in dir.appendingPathComponent(name) },
                                               options: DownloadOptions(createIntermediateDirectories: true, replaceExisting: true))
                #expect(TransferFiles.size(of: file) == 200_000)
                #expect(TransferFiles.size(of: dir.appendingPathComponent("200000")) == 200_000)

                let options = DownloadOptions(resumable: true)
                let resumed = root.appendingPathComponent("resumed.bin")
                do { _ = try await manager.download(from: url, to: .file(resumed), options: options) }
                catch let error as NetworkingError { print("bytes kept in", error.fileURL?.path ?? "-") }  // call again later

                let second = root.appendingPathComponent("second.bin")
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: server.url("/bytes/\(16 << 20)?seed=2")), to: .file(second),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                try await handle.suspend()      // bytes stay on disk
                try await handle.resume()       // Range: bytes=<on disk>-, If-Range: <ETag>
                var downloaded: URL?
                for try await event in handle.events { if case .downloaded(let file) = event { downloaded = file } }
                #expect(downloaded == second)

                let video = root.appendingPathComponent("clip.mp4")
                try Data(repeating: 1, count: 1000).write(to: video)
                let uploadURL = server.url("/multipart")
                var request = URLRequest(url: uploadURL)
                request.httpMethod = "POST"
                var form = MultipartFormData()
                form.append("Ada", name: "author")
                try form.append(fileAt: video, name: "video")            // video/mp4; missing file: .fileReadFailed now
                let (reply, _) = try await manager.upload(multipart: form, to: uploadURL)   // ≤ 10 MiB in memory, else temp file
                let chunked = try await manager.uploadTask(with: request, multipart: form, encoding: .chunked)
                _ = try await collectEvents(chunked)
                #expect(String(decoding: reply, as: UTF8.self).contains("video/mp4"))
            }
        }
    }
}
