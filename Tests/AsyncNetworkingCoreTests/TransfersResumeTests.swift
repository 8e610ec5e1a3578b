@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Resumable downloads (Range + If-Range) and pause/resume of running downloads.
@Suite("Transfers resumable downloads")
struct TransfersResumeTests {
    let resumable = DownloadOptions(resumable: true)

    @Test func droppedConnectionIsResumedAutomaticallyWithARangeRequest() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 4 << 20
                let drop = 1_500_000
                let (url, response) = try await manager.download(
                    from: server.url("/bytes/\(count)?seed=7&drop=\(drop)"),
                    to: .file(directory.appendingPathComponent("resumed.bin")), options: resumable
                )
                #expect(response.statusCode == 206)
                #expect(try TransfersSupport.checksum(ofFile: url) == TransfersSupport.checksum(seed: 7, count: count))
                let requests = TransfersSupport.requests(server, path: "/bytes/\(count)")
                #expect(requests.count == 2)
                #expect(requests.first?.header("Range") == nil)
                let range = try #require(requests.last?.header("Range"))
                #expect(range.hasPrefix("bytes=") && range != "bytes=0-", "continued from the bytes on disk: \(range)")
                #expect(requests.last?.header("If-Range") == "\"b-\(count)-7\"")
                #expect(TransfersSupport.contents(of: directory) == ["resumed.bin"], "partial file and record are gone")
            }
        }
    }

    @Test func failedDownloadKeepsItsBytesAndAProcessRestartContinuesThem() async throws {
        try await TransfersSupport.withDirectory { directory in
            let server = try LoopbackServer()
            defer { server.stop() }
            let count = 3 << 20
            let target = directory.appendingPathComponent("restart.bin")
            let options = DownloadOptions(resumable: true, automaticResumeAttempts: 0)
            // First "process": the connection drops and the download fails.
            let first = SessionManager()
            let error = await expectNetworkingError {
                try await first.download(from: server.url("/bytes/\(count)?seed=5&drop=1000000"), to: .file(target), options: options)
            }
            await first.invalidateAndCancel()
            let partial = try #require(error?.fileURL)
            #expect(partial.lastPathComponent == "restart.bin.partial")
            let kept = try #require(TransferFiles.size(of: partial))
            #expect(kept > 0 && kept <= 1_000_000)
            #expect(TransfersSupport.contents(of: directory) == ["restart.bin.partial", "restart.bin.partial.json"])

            // Second "process": a new manager knows only what is on disk.
            try await withDeadline {
                let second = SessionManager()
                let (url, _) = try await second.download(from: server.url("/bytes/\(count)?seed=5&drop=1000000"), to: .file(target), options: options)
                await second.invalidateAndCancel()
                #expect(try TransfersSupport.checksum(ofFile: url) == TransfersSupport.checksum(seed: 5, count: count))
            }
            let requests = TransfersSupport.requests(server, path: "/bytes/\(count)")
            #expect(requests.count == 2)
            #expect(requests.last?.header("Range") == "bytes=\(kept)-")
            #expect(TransfersSupport.contents(of: directory) == ["restart.bin"])
        }
    }

    @Test func cancelledDownloadResumesToAnIdenticalFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 16 << 20
                let url = server.url("/bytes/\(count)?seed=21")
                let target = directory.appendingPathComponent("cancelled.bin")
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: url), to: .file(target),
                    options: DownloadOptions(resumable: true, transfer: TransferOptions(startsImmediately: false))
                )
                // What handle.cancel() does, at a known point of the body.
                await manager.whenDownload(handle.id, reaches: [Int64(count / 3)]) { manager, id in
                    manager.cancelTransfer(id, reason: NetworkingError(.cancelled, "the transfer was cancelled"))
                }
                try await handle.resume()
                let error = await expectNetworkingError { _ = try await collectEvents(handle) }
                #expect(error?.kind == .cancelled)
                let kept = try #require(error?.fileURL.flatMap(TransferFiles.size(of:)))
                #expect(kept >= Int64(count / 3) && kept < Int64(count))

                let (file, response) = try await manager.download(from: url, to: .file(target), options: resumable)
                #expect(response.statusCode == 206)
                #expect(try TransfersSupport.checksum(ofFile: file) == TransfersSupport.checksum(seed: 21, count: count))
                #expect(TransfersSupport.requests(server, path: "/bytes/\(count)").last?.header("Range") == "bytes=\(kept)-")
            }
        }
    }

    @Test func changedValidatorForcesAFullDownload() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 2 << 20
                let url = server.url("/versioned/\(count)?drop=700000")
                let target = directory.appendingPathComponent("versioned.bin")
                let options = DownloadOptions(resumable: true, automaticResumeAttempts: 0)
                _ = await expectNetworkingError { try await manager.download(from: url, to: .file(target), options: options) }
                #expect(server.bumpResourceVersion() == 1)

                let (file, response) = try await manager.download(from: url, to: .file(target), options: options)
                #expect(response.statusCode == 200, "the stale If-Range made the server send the whole new body")
                #expect(try TransfersSupport.checksum(ofFile: file) == TransfersSupport.checksum(seed: 1, count: count))
                let second = try #require(TransfersSupport.requests(server, path: "/versioned/\(count)").last)
                #expect(second.header("Range") != nil)
                #expect(second.header("If-Range") == "\"v0-\(count)\"")
            }
        }
    }

    @Test func serverIgnoringRangesFallsBackToAFullDownload() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 2 << 20
                let (file, response) = try await manager.download(
                    from: server.url("/bytes/\(count)?seed=4&norange=1&drop=600000"),
                    to: .file(directory.appendingPathComponent("norange.bin")), options: resumable
                )
                #expect(response.statusCode == 200)
                #expect(try TransfersSupport.checksum(ofFile: file) == TransfersSupport.checksum(seed: 4, count: count))
                #expect(TransfersSupport.requests(server, path: "/bytes/\(count)").last?.header("Range") != nil)
            }
        }
    }

    @Test func completePartialFileIsConfirmedWithItsLastByte() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 100_000
                let url = server.url("/bytes/\(count)?seed=8")
                let target = directory.appendingPathComponent("complete.bin")
                // As if the process died after the last byte was written but before the rename.
                try SeededBytes.data(seed: 8, offset: 0, count: count).write(to: URL(fileURLWithPath: target.path + ".partial"))
                try DownloadRecord(url: url.absoluteString, validator: "\"b-\(count)-8\"", totalLength: Int64(count))
                    .save(to: URL(fileURLWithPath: target.path + ".partial.json"))
                let (file, response) = try await manager.download(from: url, to: .file(target), options: resumable)
                #expect(response.statusCode == 206)
                #expect(try Data(contentsOf: file) == SeededBytes.data(seed: 8, offset: 0, count: count))
                #expect(TransfersSupport.requests(server, path: "/bytes/\(count)").last?.header("Range") == "bytes=\(count - 1)-")
            }
        }
    }

    @Test func unsatisfiableRangeRestartsWithAPlainRequest() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let url = server.url("/bytes/1000?seed=1")
                let target = directory.appendingPathComponent("shrunk.bin")
                // More bytes on disk than the resource has, with its validator and no known length.
                try Data(repeating: 0xEE, count: 1500).write(to: URL(fileURLWithPath: target.path + ".partial"))
                try DownloadRecord(url: url.absoluteString, validator: "\"b-1000-1\"", totalLength: nil)
                    .save(to: URL(fileURLWithPath: target.path + ".partial.json"))
                let (file, response) = try await manager.download(from: url, to: .file(target), options: resumable)
                #expect(response.statusCode == 200)
                #expect(try Data(contentsOf: file) == SeededBytes.data(seed: 1, offset: 0, count: 1000))
                let requests = TransfersSupport.requests(server, path: "/bytes/1000")
                #expect(requests.map { $0.header("Range") } == ["bytes=1500-", nil], "a 416, then the whole body")
                #expect(TransfersSupport.contents(of: directory) == ["shrunk.bin"])
            }
        }
    }

    @Test func notResumableDownloadDeletesItsPartialFileOnFailure() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let error = await expectNetworkingError {
                    try await manager.download(
                        from: server.url("/bytes/2000000?drop=500000"), to: .file(directory.appendingPathComponent("gone.bin"))
                    )
                }
                if case .transport = error?.kind {} else { Issue.record("expected a transport error, got \(String(describing: error))") }
                #expect(error?.fileURL == nil)
                #expect(TransfersSupport.contents(of: directory).isEmpty)
            }
        }
    }
}

/// Pausing a running download stops its connection and resumes with a validated Range.
@Suite("Transfers pause and resume")
struct TransfersPauseTests {
    @Test func pausingAndResumingThreeTimesYieldsAnIdenticalFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 24 << 20
                let target = directory.appendingPathComponent("paused.bin")
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: server.url("/bytes/\(count)?seed=13")), to: .file(target),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                // What handle.suspend() does, at three known points of the running body.
                let marks = [1, 2, 3].map { Int64(count / 4 * $0) }
                await manager.whenDownload(handle.id, reaches: marks) { manager, id in
                    #expect(throws: Never.self) { try manager.suspendTransfer(id) }
                }
                let consumer = Task {
                    var progress: [Int64] = []
                    var responses = 0
                    for try await event in handle.events {
                        if case .response = event { responses += 1 }
                        if let value = event.downloadProgressValue { progress.append(value.completedBytes) }
                    }
                    return (progress, responses)
                }
                try await handle.resume()
                for _ in marks {
                    #expect(await eventually { await manager.runningTransferCount == 0 }, "paused")
                    #expect(await manager.activeTransferCount == 1, "held, not finished")
                    try await Task.sleep(for: .milliseconds(20))
                    try await handle.resume()
                }
                let (progress, responses) = try await consumer.value
                #expect(progress == progress.sorted(), "progress counts the bytes kept on disk")
                #expect(progress.last == Int64(count))
                #expect(responses == 1, "one response event for the file")
                #expect(try TransfersSupport.checksum(ofFile: target) == TransfersSupport.checksum(seed: 13, count: count))
                let requests = TransfersSupport.requests(server, path: "/bytes/\(count)")
                #expect(requests.count == 4)
                let starts = requests.dropFirst().compactMap { $0.header("Range") }.compactMap { Int64($0.dropFirst(6).dropLast()) }
                #expect(starts.count == 3)
                // The pause lands within what one delivery carries: a chunk on URLSession, at most
                // the download's flow-control window (1 MiB) of one loop turn on curl.
                let slack: Int64 = manager.transport == .curl ? Int64(DownloadSink.window) + (64 << 10) : 1 << 19
                for (start, mark) in zip(starts, marks) { #expect(start >= mark && start < mark + slack, "\(starts)") }
                #expect(requests.dropFirst().allSatisfy { $0.header("If-Range") == "\"b-\(count)-13\"" })
            }
        }
    }

    @Test func pausingADownloadWithoutValidatorRestartsItCorrectly() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let target = directory.appendingPathComponent("drip.bin")
                // The first response stops after 25,000 bytes until the gate opens, so the pause at
                // 10,000 always lands mid-body; the restart after it goes straight through.
                let gate = UUID().uuidString
                defer { server.openGate(gate) }
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: server.url("/gated-bytes?bytes=50000&after=25000&gate=\(gate)")), to: .file(target),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                await manager.whenDownload(handle.id, reaches: [10_000]) { manager, id in _ = try? manager.suspendTransfer(id) }
                try await handle.resume()
                #expect(await eventually { await manager.runningTransferCount == 0 })
                server.openGate(gate)
                try await handle.resume()
                _ = try await collectEvents(handle)
                #expect(try Data(contentsOf: target) == BytePattern.data(offset: 0, count: 50000))
                let requests = TransfersSupport.requests(server, path: "/gated-bytes")
                #expect(requests.count == 2)
                #expect(requests.allSatisfy { $0.header("Range") == nil }, "without a validator the bytes cannot be trusted")
            }
        }
    }

    @Test func suspendedDownloadCanBeCancelledAndLeavesNoFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: server.url("/bytes/\(32 << 20)")), to: .file(directory.appendingPathComponent("x.bin")),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                await manager.whenDownload(handle.id, reaches: [1 << 20]) { manager, id in _ = try? manager.suspendTransfer(id) }
                try await handle.resume()
                #expect(await eventually { await manager.runningTransferCount == 0 })
                #expect(TransfersSupport.contents(of: directory).count == 1, "the partial file waits while paused")
                handle.cancel()
                let error = await expectNetworkingError { _ = try await collectEvents(handle) }
                #expect(error?.kind == .cancelled)
                #expect(await manager.activeTransferCount == 0)
                #expect(TransfersSupport.contents(of: directory).isEmpty)
            }
        }
    }
}
