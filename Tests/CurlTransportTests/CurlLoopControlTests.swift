#if os(Linux)
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

@Suite("Curl loop: cancel, pause, shutdown")
struct CurlLoopControlTests {
    /// Waits until the transfer's received byte count stays the same over `quiet`, then returns it.
    private func settledCount(_ recorder: CurlRecorder, _ id: CurlTransferID, quiet: Duration = .milliseconds(300)) async throws -> Int {
        var last = recorder.record(id).bodyCount
        for _ in 0..<100 {
            try await Task.sleep(for: quiet)
            let now = recorder.record(id).bodyCount
            if now == last { return now }
            last = now
        }
        Issue.record("the received byte count never settled")
        return last
    }

    @Test("cancel mid-body: a cancelled completion, nothing live afterwards, the server sees the abort")
    func cancelMidBody() async throws {
        try await withCurlLoop { server, loop, recorder in
            // The body stalls after its first chunk for longer than any test: the transfer is
            // still running when the cancel arrives, however loaded the machine.
            let id = try loop.get(server.url("/drip?bytes=100000&delay=\(neverEnding)&chunks=100"))
            #expect(await curlEventually { recorder.record(id).bodyCount > 0 })
            loop.cancel(id)
            let completion = await recorder.completion(of: id)
            #expect(completion.wasCancelled)
            #expect(completion.code == 42)
            #expect(CurlErrorMapping.urlErrorCode(for: completion.code) == .cancelled)
            #expect(recorder.record(id).order == ["response", "data", "completed"])
            #expect(await curlEventually { loop.stats.activeTransfers == 0 })
            #expect(await curlEventually { server.stats.clientAborts == 1 })
            loop.cancel(id) // a second cancel of a finished transfer is ignored
        }
    }

    @Test("cancel right after start: a cancelled completion and no response")
    func cancelBeforeRunning() async throws {
        try await withCurlLoop { server, loop, recorder in
            let ids = try (0..<20).map { _ in try loop.get(server.url("/delay/\(neverEnding)")) }
            for id in ids { loop.cancel(id) }
            for id in ids {
                #expect(await recorder.completion(of: id).wasCancelled)
                #expect(recorder.record(id).heads.isEmpty)
            }
            #expect(await curlEventually { loop.stats.activeTransfers == 0 })
        }
    }

    @Test("pausing receive is real back-pressure, does not stall another transfer, and resumes to the exact body")
    func pauseReceive() async throws {
        try await withCurlLoop(deadline: 90) { server, loop, recorder in
            let total = 32 << 20
            // Paused from the handler at the first body bytes (as a consumer past its high-water
            // mark would): the pause lands at the loop's next turn, long before the end.
            let pausedOnce = SanitizedMutex(false)
            recorder.onData { id, _ in
                guard pausedOnce.withLock({ done in defer { done = true }; return !done }) else { return }
                loop.pauseReceiving(id)
            }
            let big = try loop.get(server.url("/bytes/\(total)"))
            #expect(await curlEventually { recorder.record(big).bodyCount > 0 })
            let paused = try await settledCount(recorder, big)
            #expect(paused < total)
            // While paused: nothing more arrives, the server cannot finish writing, others run.
            let other = try loop.get(server.url("/bytes/200000?seed=1"))
            let otherCompletion = await recorder.completion(of: other)
            #expect(otherCompletion.succeeded)
            #expect(recorder.record(other).body == SeededBytes.data(seed: 1, offset: 0, count: 200_000))
            try await Task.sleep(for: .milliseconds(300))
            #expect(recorder.record(big).bodyCount == paused)
            #expect(recorder.record(big).completion == nil)
            #expect(server.stats.inFlight == 1)

            loop.resumeReceiving(big)
            let completion = await recorder.completion(of: big)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            let record = recorder.record(big)
            #expect(record.bodyCount == total)
            #expect(record.bodyHash.value == TransfersSupport.checksum(seed: nil, count: total))
            #expect(completion.metrics.bytesReceived == Int64(total))
        }
    }

    @Test("cancelling a paused transfer completes it as cancelled")
    func cancelPaused() async throws {
        try await withCurlLoop { server, loop, recorder in
            let pausedOnce = SanitizedMutex(false)
            recorder.onData { id, _ in
                guard pausedOnce.withLock({ done in defer { done = true }; return !done }) else { return }
                loop.pauseReceiving(id)
            }
            let id = try loop.get(server.url("/bytes/\(32 << 20)"))
            #expect(await curlEventually { recorder.record(id).bodyCount > 0 })
            loop.cancel(id)
            let completion = await recorder.completion(of: id)
            #expect(completion.wasCancelled)
            #expect(recorder.record(id).bodyCount < 32 << 20)
            #expect(await curlEventually { server.stats.clientAborts == 1 })
        }
    }

    @Test("toggling pause and resume rapidly never loses or duplicates a byte")
    func pauseToggling() async throws {
        try await withCurlLoop(deadline: 90) { server, loop, recorder in
            let total = 8 << 20
            var small = CurlTransferOptions()
            small.receiveBufferSize = 4096 // more, smaller deliveries: more pauses land mid-stream
            let id = try loop.get(server.url("/bytes/\(total)?seed=9"), options: small)
            let toggler = Task {
                var paused = false
                while !Task.isCancelled {
                    if paused { loop.resumeReceiving(id) } else { loop.pauseReceiving(id) }
                    paused.toggle()
                    try? await Task.sleep(for: .milliseconds(2))
                }
                loop.resumeReceiving(id)
            }
            let completion = await recorder.completion(of: id)
            toggler.cancel()
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            let record = recorder.record(id)
            #expect(record.bodyCount == total)
            #expect(record.bodyHash.value == TransfersSupport.checksum(seed: 9, count: total))
        }
    }

    @Test("a receive window pauses the transfer by itself until the consumer reports progress")
    func receiveWindow() async throws {
        try await withCurlLoop(deadline: 90) { server, loop, recorder in
            let total = 16 << 20
            let window = 256 << 10
            var options = CurlTransferOptions()
            options.receiveWindow = window
            let id = try loop.get(server.url("/bytes/\(total)?seed=2"), options: options)
            // Nothing consumed: the transfer stops after one window (plus at most one 16 KiB chunk).
            #expect(await curlEventually { recorder.record(id).bodyCount >= window })
            let first = try await settledCount(recorder, id)
            #expect(first >= window && first <= window + 16_384)
            #expect(server.stats.inFlight == 1)
            // Consuming it all makes room for exactly one more window.
            loop.didConsume(id, totalBytes: Int64(first))
            #expect(await curlEventually { recorder.record(id).bodyCount > first })
            let second = try await settledCount(recorder, id)
            #expect(second >= first + window && second <= first + window + 16_384)
            // A consumer that keeps up: the transfer runs to the exact end.
            let consumer = Task {
                while !Task.isCancelled {
                    loop.didConsume(id, totalBytes: Int64(recorder.record(id).bodyCount))
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            let completion = await recorder.completion(of: id)
            consumer.cancel()
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            #expect(recorder.record(id).bodyCount == total)
            #expect(recorder.record(id).bodyHash.value == TransfersSupport.checksum(seed: 2, count: total))
        }
    }

    @Test("pausing and resuming the send side of a Data upload delivers the exact bytes")
    func pauseSend() async throws {
        try await withCurlLoop { server, loop, recorder in
            // The server stops reading after 64 KiB until the send side is paused: the client can
            // only fill the socket buffers (a few MiB of the 32), so the pause lands mid-body.
            let body = SeededBytes.data(seed: 4, offset: 0, count: 32 << 20)
            let gate = UUID().uuidString
            defer { server.openGate(gate) }
            let url = server.url("/gated-upload?gate=\(gate)&after=\(64 << 10)")
            let id = try loop.start(CurlRequest(url: url, method: "POST", body: .data(body)))
            #expect(await curlEventually { recorder.record(id).sentTotal > 0 })
            loop.pauseSending(id)
            server.openGate(gate)
            try await Task.sleep(for: .milliseconds(200))
            #expect(recorder.record(id).sentTotal < Int64(body.count), "paused before the end")
            loop.resumeSending(id)
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            let json = curlJSON(recorder.record(id).body)
            #expect(json["bytes"] as? Int == body.count)
            #expect(json["checksum"] as? String == String(Checksum.fnv1a64(body)))
        }
    }

    @Test("shutdown with transfers in flight completes every one, frees every handle, and the thread exits")
    func shutdownInFlight() async throws {
        try await withCurlLoop { server, loop, recorder in
            var ids = try (0..<10).map { _ in try loop.get(server.url("/delay/\(neverEnding)")) }
            ids += try (0..<5).map { _ in try loop.get(server.url("/drip?bytes=1000&delay=\(neverEnding)&chunks=100")) }
            let pipe = CurlBodyPipe()
            ids.append(try loop.start(CurlRequest(url: server.url("/upload"), method: "POST", body: .producer(pipe, length: nil))))
            // Six connections per host: six requests reach the server, the rest wait inside curl.
            #expect(await curlEventually { server.stats.inFlight >= 6 })
            await loop.shutdown()
            for id in ids {
                let completion = await recorder.completion(of: id)
                #expect(completion.wasCancelled)
                #expect(recorder.record(id).order.last == "completed")
            }
            let stats = loop.stats
            #expect(!stats.isRunning)
            #expect(stats.liveEasyHandles == 0)
            #expect(stats.activeTransfers == 0)
            #expect(throws: CurlRequestError.self) { try loop.get(server.url("/bytes/1")) }
            loop.cancel(ids[0]) // after shutdown: ignored
        }
    }

    @Test("dropping the last reference shuts the loop down and completes its transfers")
    func deinitShutsDown() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let recorder = CurlRecorder()
        var loop: CurlMultiLoop? = try CurlMultiLoop(handler: recorder.handler)
        // Never answers by itself: only the shutdown can complete it, however loaded the machine.
        let id = try #require(try loop?.get(server.url("/delay/\(neverEnding)")))
        #expect(await curlEventually { server.stats.inFlight == 1 })
        loop = nil
        let completion = try await withDeadline(30) { await recorder.completion(of: id) }
        #expect(completion.wasCancelled)
    }
}
#endif
