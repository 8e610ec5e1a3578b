@testable import AsyncNetworkingTestSupport

/// `tasks`, `dataTasks`, `uploadTasks`, `downloadTasks` and `cancelAll()`.
@Suite("Manager: live transfers")
struct ManagerListingTests {
    @Test func liveTransfersAreListedByKindAndStatusAndCancelAllKeepsTheManagerUsable() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager(maxConcurrentTransfers: 2) { server, manager in
                let slow = server.url("/delay/\(neverEnding)")
                let data = try await manager.dataTask(with: URLRequest(url: slow))
                let awaiting = Task { try await manager.data(for: URLRequest(url: slow)) }
                #expect(await eventually { await manager.runningTransferCount == 2 })
                var post = URLRequest(url: server.url("/upload"))
                post.httpMethod = "POST"
                let upload = try await manager.uploadTask(with: post, from: Data(count: 1000)) // waits for a slot
                let download = try await manager.downloadTask(
                    with: URLRequest(url: server.url("/bytes/100")), to: .directory(directory),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )

                let tasks = await manager.tasks
                #expect(tasks.map(\.kind) == [.data, .data, .upload, .download])
                #expect(tasks.map(\.status) == [.running, .running, .waiting, .suspended])
                #expect(await manager.dataTasks.map(\.id).first == data.id)
                #expect(await manager.dataTasks.count == 2)
                #expect(await manager.uploadTasks.map(\.id) == [upload.id])
                #expect(await manager.downloadTasks.map(\.id) == [download.id])
                #expect(await manager.tasks(of: .data, status: .running).count == 2)
                #expect(await manager.snapshot(of: upload.id)?.originalRequest.httpMethod == "POST")

                #expect(await manager.cancelAll() == 4)
                for handle in [data, upload, download] {
                    let error = await expectNetworkingError { _ = try await collectEvents(handle) }
                    #expect(error?.kind == .cancelled)
                }
                let awaited = await expectNetworkingError { _ = try await awaiting.value }
                #expect(awaited?.kind == .cancelled)
                #expect(await eventually { await manager.activeTransferCount == 0 })
                #expect(await manager.tasks.isEmpty)

                // Still usable.
                #expect(await manager.isActive)
                let (body, response) = try await manager.data(from: server.url("/bytes/10"))
                #expect(response.statusCode == 200 && body.count == 10)
            }
        }
    }

    @Test func cancelAllOfOneKindLeavesTheOthers() async throws {
        try await withServerAndManager { server, manager in
            let data = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/64")))
            var post = URLRequest(url: server.url("/upload?pace=100"))
            post.httpMethod = "POST"
            let upload = try await manager.uploadTask(
                with: post, from: Data(count: 1000), options: TransferOptions(startsImmediately: false)
            )
            #expect(await manager.cancelAll(kind: .upload) == 1)
            let error = await expectNetworkingError { _ = try await collectEvents(upload) }
            #expect(error?.kind == .cancelled)
            let events = try await collectEvents(data)
            #expect(events.last?.name == "completed")
        }
    }

    @Test func aSuspendedTransferIsListedAsSuspendedAndItsSnapshotControlsIt() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(
                with: URLRequest(url: server.url("/bytes/32")), options: TransferOptions(startsImmediately: false)
            )
            let listed = try #require(await manager.tasks.first)
            #expect(listed.id == handle.id && listed.status == .suspended && listed.kind == .data)
            try await listed.resume()
            let events = try await collectEvents(handle)
            #expect(events.last?.name == "completed")
            #expect(await manager.snapshot(of: handle.id) == nil)
        }
    }
}
