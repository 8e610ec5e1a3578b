@testable import AsyncNetworkingTestSupport

/// Pausing and resuming running data transfers and uploads (real on curl, refused on URLSession).
@Suite("Manager: pause and resume")
struct ManagerPauseTests {
    /// Waits until `value` stops changing (what was in flight drained).
    private func settled(_ value: @escaping @Sendable () async -> Int64) async -> Int64 {
        _ = await eventually {
            let before = await value()
            try? await Task.sleep(for: .milliseconds(200))
            return await value() == before
        }
        return await value()
    }

    @Test func aRunningUploadPausesInPlaceAndResumesToTheEndOnCurl() async throws {
        try await withServerAndManager { server, manager in
            let recorder = ActivityRecorder(await manager.transferActivity())
            defer { recorder.stop() }
            // The server stops reading after 1 MiB until the test has paused the upload: the
            // client can only fill the socket buffers (a few MiB of the 64), so the pause always
            // lands mid-body, however slow or loaded the machine.
            let gate = UUID().uuidString
            defer { server.openGate(gate) }
            var request = URLRequest(url: server.url("/gated-upload?gate=\(gate)&after=\(1 << 20)"))
            request.httpMethod = "POST"
            let size = 64 << 20
            let handle = try await manager.uploadTask(with: request, from: Data(repeating: 7, count: size))
            let sent = { @Sendable in await manager.snapshot(of: handle.id)?.uploadProgress.completedBytes ?? -1 }
            #expect(await eventually { await sent() > 1 << 20 })
            guard manager.transport == .curl else {
                let error = await expectNetworkingError { try await handle.suspend() }
                #expect(error?.kind == .unsupportedOperation, "URLSession on Linux cannot pause without corrupting")
                handle.cancel()
                return
            }
            try await handle.suspend()
            #expect(await manager.snapshot(of: handle.id)?.status == .suspended)
            // The server reads again: only the pause holds the upload back now.
            server.openGate(gate)
            let pausedAt = await settled(sent)
            try await Task.sleep(for: .milliseconds(300))
            #expect(await sent() == pausedAt, "nothing is sent while paused")
            #expect(pausedAt < Int64(size), "paused before the end")
            try await handle.resume()
            #expect(await manager.snapshot(of: handle.id)?.status == .running)
            var status: Int?
            var body = Data()
            for try await event in handle.events {
                if case .response(let response) = event { status = response.statusCode }
                if case .data(let chunk) = event { body.append(chunk) }
            }
            #expect(status == 200)
            let answer = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(answer?["bytes"] as? Int == size, "the whole body arrived once")
            _ = await recorder.completion(of: handle.id)
            let names = recorder.events(of: handle.id).map(\.name).filter { ["started", "suspended", "completed"].contains($0) }
            #expect(names == ["started", "suspended", "started", "completed"], "observers see the pause and the resume")
        }
    }

    @Test func aRunningDataTransferPausesOnCurlAndIsRefusedOnURLSession() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: endlessBody(server, transport: manager.transport)))
            let received = ParityCounter()
            let reader = Task {
                do {
                    for try await event in handle.events { if case .data(let chunk) = event { received.add(chunk.count) } }
                    return "ended"
                } catch {
                    return (error as? NetworkingError)?.kind == .cancelled ? "cancelled" : "\(error)"
                }
            }
            #expect(await eventually { received.load() > 0 })
            if manager.transport == .curl {
                #expect(await eventually { received.load() > 1 << 20 })
                try await handle.suspend()
                let pausedAt = await settled { Int64(received.load()) }
                try await Task.sleep(for: .milliseconds(300))
                #expect(Int64(received.load()) - pausedAt < 8 << 20)
                #expect(await manager.tasks.first?.status == .suspended)
                try await handle.resume()
                #expect(await eventually { Int64(received.load()) > pausedAt + (16 << 20) }, "flows again")
            } else {
                let error = await expectNetworkingError { try await handle.suspend() }
                #expect(error?.kind == .unsupportedOperation)
                #expect(await manager.tasks.first?.status == .running, "refused: still running")
            }
            handle.cancel()
            #expect(await reader.value == "cancelled")
        }
    }
}
