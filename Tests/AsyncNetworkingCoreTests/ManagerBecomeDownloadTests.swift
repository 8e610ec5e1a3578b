@testable import AsyncNetworkingTestSupport

/// A data transfer that becomes a download (`NSURLSessionResponseBecomeDownload`).
@Suite("Manager: a data transfer becomes a download")
struct ManagerBecomeDownloadTests {
    private func becomeDownload(into directory: URL) -> SessionHooks {
        SessionHooks(response: { response, _ in
            .becomeDownload(to: .file(directory.appendingPathComponent("became-\(response.url?.lastPathComponent ?? "x").bin")))
        })
    }

    @Test func theBodyGoesToDiskAndTheCallerGetsTheFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                await manager.setHooks(becomeDownload(into: directory))
                let recorder = ActivityRecorder(await manager.transferActivity())
                defer { recorder.stop() }
                let count = 3 << 20
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/\(count)?seed=5")))
                let events = try await collectEvents(handle)
                #expect(!events.contains { $0.name == "data" }, "no body bytes in the stream")
                #expect(events.filter { $0.name == "response" }.count == 1)
                let file = try #require(events.compactMap { event -> URL? in
                    if case .downloaded(let url) = event { return url }
                    return nil
                }.first)
                #expect(file.lastPathComponent == "became-\(count).bin")
                #expect(try TransfersSupport.checksum(ofFile: file) == TransfersSupport.checksum(seed: 5, count: count))
                #expect(events.last?.name == "completed")
                #expect(TransfersSupport.contents(of: directory) == [file.lastPathComponent], "no partial file left")
                let done = try #require(await recorder.completion(of: handle.id))
                #expect(done.kind == .download && done.fileURL == file && done.error == nil)
            }
        }
    }

    @Test func anErrorStatusIsNeverWrittenToTheFile() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                await manager.setHooks(becomeDownload(into: directory))
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/status/404")))
                let error = await expectNetworkingError { _ = try await collectEvents(handle) }
                #expect(error?.kind == .unacceptableStatusCode(404))
                #expect(TransfersSupport.contents(of: directory).isEmpty)
            }
        }
    }

    @Test func anAwaitingCallCannotBecomeADownload() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                await manager.setHooks(becomeDownload(into: directory))
                let error = await expectNetworkingError { try await manager.data(from: server.url("/bytes/100")) }
                #expect(error?.kind == .unsupportedOperation)
                #expect(await eventually { await manager.activeTransferCount == 0 })
                #expect(TransfersSupport.contents(of: directory).isEmpty)
            }
        }
    }

    @Test func aBadDestinationFailsTheTransferWithTheDownloadsError() async throws {
        try await withServerAndManager { server, manager in
            await manager.setHooks(SessionHooks(response: { _, _ in
                .becomeDownload(to: .file(URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/file.bin")))
            }))
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/100")))
            let error = await expectNetworkingError { _ = try await collectEvents(handle) }
            #expect(error?.kind == .fileWriteFailed)
        }
    }
}
