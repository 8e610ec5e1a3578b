@testable import AsyncNetworkingTestSupport

/// A `Progress` owned by the main actor, bound to a transfer by a task on the main actor — the way
/// a UI would hold one. Only `Sendable` values leave it.
@MainActor final class ProgressProbe {
    let progress = Progress(totalUnitCount: -1)
    private var binding: Task<Void, Never>?

    init() {}

    func bind(_ handle: TransferHandle, direction: ProgressDirection = .download) {
        let progress = progress
        binding = Task { @MainActor in await handle.bind(progress, direction: direction) }
    }

    /// Waits for the binding task to end (the transfer ended).
    func bound() async { await binding?.value }

    var completed: Int64 { progress.completedUnitCount }
    var total: Int64 { progress.totalUnitCount }
    var isFinished: Bool { progress.isFinished }
    var isPausable: Bool { progress.isPausable }
    func cancel() { progress.cancel() }
    func pause() { progress.pause() }
    func resume() { progress.resume() }
}

/// `Foundation.Progress` bound to a transfer, fed by a task the caller owns (on the main actor).
@Suite("Manager: Foundation.Progress")
struct ManagerProgressTests {
    @Test func aBoundProgressFollowsADownloadToTheEnd() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                let count = 8 << 20
                let handle = try await manager.downloadTask(
                    with: URLRequest(url: server.url("/bytes/\(count)?seed=2")), to: .directory(directory),
                    options: DownloadOptions(transfer: TransferOptions(startsImmediately: false))
                )
                let probe = await ProgressProbe()
                await probe.bind(handle)
                try await handle.resume()
                _ = try await collectEvents(handle)
                await probe.bound()
                #expect(await probe.total == Int64(count))
                #expect(await probe.completed == Int64(count))
                #expect(await probe.isFinished)
                #expect(await probe.isPausable, "a download can always be paused")
            }
        }
    }

    @Test func cancellingTheProgressCancelsTheTransfer() async throws {
        try await withServerAndManager { server, manager in
            // The server reads none of the body until the test ends (a gate nobody opens): the
            // client fills the socket buffers, a few MiB of the 32, so however late the cancel
            // comes on a loaded machine, the body is never all sent before it.
            var request = URLRequest(url: server.url("/gated-upload?gate=\(UUID().uuidString)"))
            request.httpMethod = "POST"
            let handle = try await manager.uploadTask(with: request, from: Data(count: 32 << 20))
            let probe = await ProgressProbe()
            await probe.bind(handle, direction: .upload)
            #expect(await eventually { await probe.completed > 0 })
            #expect(await probe.total == 32 << 20)
            await probe.cancel()
            let error = await expectNetworkingError { _ = try await collectEvents(handle) }
            #expect(error?.kind == .cancelled)
            await probe.bound()
            #expect(await !probe.isFinished)
        }
    }

    @Test func pausingAndResumingTheProgressActsOnTheTransfer() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: endlessBody(server, transport: manager.transport)))
            let probe = await ProgressProbe()
            await probe.bind(handle)
            let reader = Task { try? await collectEvents(handle) }
            #expect(await eventually { await probe.completed > 0 })
            let pausable = await probe.isPausable
            #expect(pausable == (manager.transport == .curl), "pausable where suspend() works")
            if pausable {
                await probe.pause()
                #expect(await eventually { await manager.snapshot(of: handle.id)?.status == .suspended })
                await probe.resume()
                #expect(await eventually { await manager.snapshot(of: handle.id)?.status == .running })
            }
            handle.cancel()
            _ = await reader.value
            await probe.bound()
        }
    }

    @Test func bindingAFinishedTransferLeavesTheProgressComplete() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/bytes/10")))
            _ = try await collectEvents(handle)
            #expect(await eventually { await manager.activeTransferCount == 0 })
            let probe = await ProgressProbe()
            await probe.bind(handle)
            await probe.bound()
            #expect(await probe.isFinished)
        }
    }
}
