import Synchronization
@testable import AsyncNetworkingTestSupport

/// Files that change under a transfer: the error says what happened and where the bytes are.
@Suite("Fault suite: files", .tags(.fault))
struct FaultFileTests {
    @Test func multipartFileThatShrinksMidUploadFailsWithFileReadFailed() async throws {
        try await withServerAndManager { server, manager in
            try await TransfersSupport.withDirectory { directory in
                let file = directory.appendingPathComponent("part.bin")
                try TransfersSupport.writeSeeded(file, seed: 3, count: 16 << 20)
                var form = MultipartFormData()
                form.append("x", name: "field")
                try form.append(fileAt: file, name: "file")
                // The server reads nothing until the file has shrunk: the client can only fill the
                // socket buffers (a few MiB of the 16), so the upload is still reading the file
                // when it shrinks, however slow or loaded the machine.
                let gate = UUID().uuidString
                var request = URLRequest(url: server.url("/gated-upload?gate=\(gate)"))
                request.httpMethod = "POST"
                let handle = try await manager.uploadTask(with: request, multipart: form, encoding: .chunked)
                var truncated = false
                let error = await expectNetworkingError {
                    for try await event in handle.events {
                        if case .uploadProgress = event, !truncated {
                            truncated = true
                            #expect(truncate(file.path, 1 << 20) == 0)
                            server.openGate(gate)
                        }
                    }
                }
                server.openGate(gate)
                #expect(truncated)
                #expect(error?.kind == .fileReadFailed)
                #expect(error?.fileURL == file)
                #expect(await manager.activeTransferCount == 0)
            }
        }
    }

    @Test func multipartFileThatVanishesBeforeSendingFailsBeforeAnythingIsSent() async throws {
        try await withServerAndManager { server, manager in
            try await TransfersSupport.withDirectory { directory in
                let file = directory.appendingPathComponent("gone.bin")
                try TransfersSupport.writeSeeded(file, seed: 4, count: 1000)
                var form = MultipartFormData()
                try form.append(fileAt: file, name: "file")
                try FileManager.default.removeItem(at: file)
                let error = await expectNetworkingError { try await manager.upload(multipart: form, to: server.url("/multipart")) }
                #expect(error?.kind == .fileReadFailed)
                #expect(error?.fileURL == file)
                #expect(server.stats.requestCount == 0)
            }
        }
    }

    @Test func downloadWhoseDestinationIsTakenMidwayKeepsTheBytesAndSaysWhere() async throws {
        try await withServerAndManager { server, manager in
            try await TransfersSupport.withDirectory { directory in
                let destination = directory.appendingPathComponent("report.bin")
                let url = server.url("/drip?bytes=3000&chunks=60&delay=10")
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: url), to: .file(destination),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                // Someone else writes the destination while the download runs: when half the body
                // is on disk (on the executor, so the transfer cannot have ended; a consumer reading
                // events can lag behind the whole loopback body).
                let placedOther = SanitizedMutex(false)
                await manager.whenDownload(handle.id, reaches: [1500]) { _, _ in
                    placedOther.withLock { $0 = (try? Data("someone else's file".utf8).write(to: destination)) != nil }
                }
                try await handle.resume()
                let error = await expectNetworkingError { _ = try await collectEvents(handle) }
                #expect(placedOther.withLock { $0 })
                #expect(error?.kind == .downloadMoveFailed)
                let kept = try #require(error?.fileURL)
                #expect(try Data(contentsOf: kept) == BytePattern.data(offset: 0, count: 3000), "every byte is kept, and the error says where")
                #expect(try String(contentsOf: destination, encoding: .utf8) == "someone else's file", "the other file is untouched")
                #expect(error?.message.contains(kept.path) == true)
            }
        }
    }

    @Test func fileUploadsCancelledAtRandomMomentsNeverCrashTheProcess() async throws {
        // Raw URLSession traps (a `try!` on curl_easy_pause, error 43) when a file upload is
        // cancelled while its DispatchIO read is in flight; file uploads here are body streams.
        try await withServerAndManager(deadline: 5 * hangDeadline) { server, manager in
            try await TransfersSupport.withDirectory { directory in
                let file = directory.appendingPathComponent("upload.bin")
                try TransfersSupport.writeSeeded(file, seed: 8, count: 8 << 20)
                var post = URLRequest(url: server.url("/upload?pace=1"))
                post.httpMethod = "POST"
                let request = post
                for _ in 0..<60 {
                    let upload = Task { try await manager.upload(for: request, fromFile: file) }
                    try await Task.sleep(for: .microseconds(Int.random(in: 0...30_000)))
                    upload.cancel()
                    do {
                        let (body, _) = try await upload.value
                        let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                        #expect(json?["bytes"] as? Int == 8 << 20)
                        #expect(json?["chunked"] as? Bool == false, "sent with its Content-Length")
                    } catch let error as NetworkingError {
                        #expect(error.kind == .cancelled)
                    }
                }
                #expect(await manager.activeTransferCount == 0)
            }
        }
    }

    @Test func fileUploadCarriesItsContentLengthNotChunked() async throws {
        try await withServerAndManager { server, manager in
            try await TransfersSupport.withDirectory { directory in
                let file = directory.appendingPathComponent("upload.bin")
                try TransfersSupport.writeSeeded(file, seed: 9, count: 3 << 20)
                var request = URLRequest(url: server.url("/upload"))
                request.httpMethod = "PUT"
                let (body, _) = try await manager.upload(for: request, fromFile: file)
                let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                #expect(json?["bytes"] as? Int == 3 << 20)
                #expect(json?["chunked"] as? Bool == false)
                let recorded = try #require(server.requests.last)
                #expect(recorded.header("Content-Length") == String(3 << 20))
                #expect(recorded.header("Transfer-Encoding") == nil)
                #expect(recorded.bodyChecksum == Checksum.fnv1a64(SeededBytes.data(seed: 9, offset: 0, count: 3 << 20)))
            }
        }
    }
}
