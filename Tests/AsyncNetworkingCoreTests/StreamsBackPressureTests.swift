@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// A slow reader of a decoded stream keeps memory bounded: on curl the server is held back (it
/// cannot write more than a bound ahead of the reader), on URLSession the transfer's buffer keeps at
/// most its high-water mark in memory and spills the rest.
@Suite("Streams back-pressure")
struct StreamsBackPressureTests {
    struct Line: Decodable, Sendable { var index: Int; var text: String }

    static let policy = BufferPolicy(highWaterMark: 256 << 10, lowWaterMark: 64 << 10)
    /// Bytes per line of `/ndjson/N?pad=1000`, for index < 10,000,000.
    static func lineLength(_ index: Int) -> Int { 1000 + 22 + String(index).count }

    @Test("a JSON Lines reader that stops holds the transfer back; memory stays bounded; it flows again when reading resumes")
    func slowJSONLinesReader() async throws {
        try await withServerAndManager { server, manager in
            let key = UUID().uuidString
            let curl = manager.transport == .curl
            // curl: an endless stream (the server must stop by itself); URLSession spills, so 64 MiB.
            let count = curl ? 1 << 40 : 64 << 10
            let url = server.url("/ndjson/\(count)?pad=1000&log=\(key)")
            try await Self.readSlowly(url, manager: manager, server: server, key: key, curl: curl)
            // The iterator is gone (as after a `break`): the transfer is cancelled.
            #expect(await eventually { await manager.activeTransferCount == 0 })
            if curl {
                #expect(await eventually { server.streamConnections(key).first?.closedAt != nil }, "the server saw the reader leave")
            }
        }
    }

    /// Reads 100 values, stops until the transfer is held back, checks the bounds, reads on until 1 MiB past where the server stopped.
    static func readSlowly(
        _ url: URL, manager: SessionManager, server: LoopbackServer, key: String, curl: Bool
    ) async throws {
        let (body, _) = try await manager.stream(for: URLRequest(url: url), options: TransferOptions(buffer: Self.policy))
        let channel = body.lifetime.channel
        var values = body.jsonLines(of: Line.self).makeAsyncIterator()
        var next = 0
        var consumed = 0
        func read(_ lines: Int) async throws {
            for _ in 0..<lines {
                let line = try #require(try await values.next())
                #expect(line.index == next)
                consumed += Self.lineLength(next)
                next += 1
            }
        }
        try await read(100)
        var written = 0
        if curl {
            // The reader has stopped: the server is held back and stops writing.
            #expect(await eventually {
                let before = server.streamConnections(key).first?.bytesWritten ?? 0
                try? await Task.sleep(for: .milliseconds(300))
                return server.streamConnections(key).first?.bytesWritten == before
            }, "the server kept writing to a reader that had stopped")
            written = server.streamConnections(key).first?.bytesWritten ?? 0
            print("STREAMS back-pressure (curl): server \(written - consumed) bytes ahead of the reader; \(channel.bufferedBytes.memory) bytes in the transfer's memory")
            // The transfer's window (3/4 of the high-water mark) plus the kernel's socket buffers.
            #expect(written - consumed < 32 << 20, "the server got \(written - consumed) bytes ahead")
        } else {
            // URLSession cannot hold the server back: the whole body arrives and spills to disk.
            #expect(await eventually { server.streamConnections(key).first?.closedAt != nil })
            #expect(await eventually { channel.bufferedBytes.spilled > 0 })
            print("STREAMS back-pressure (urlsession): \(channel.bufferedBytes.memory) bytes in memory, \(channel.bufferedBytes.spilled) spilled")
        }
        #expect(channel.bufferedBytes.memory <= Self.policy.highWaterMark + (1 << 20))
        // Reading again: every value in order, and the transfer flows again — reading 1 MiB past
        // what the server had written when it stopped proves it.
        while consumed <= written + (1 << 20) { try await read(100) }
        #expect(channel.bufferedBytes.memory <= Self.policy.highWaterMark + (1 << 20))
    }

    @Test("a slow event-stream reader holds the server back too")
    func slowEventReader() async throws {
        try await withServerAndManager { server, manager in
            guard manager.transport == .curl else { return } // URLSession spills instead (see above)
            let key = UUID().uuidString
            let configuration = EventSource.Configuration(transferOptions: TransferOptions(buffer: Self.policy))
            var events = manager.serverSentEvents(for: URLRequest(url: server.url("/sse?count=100000000&log=\(key)")), configuration: configuration).makeAsyncIterator()
            for index in 0..<10 {
                let event = try await events.next()
                #expect(event?.id == String(index))
            }
            #expect(await eventually {
                let before = server.streamConnections(key).first?.bytesWritten ?? 0
                try? await Task.sleep(for: .milliseconds(300))
                return server.streamConnections(key).first?.bytesWritten == before
            }, "the server kept writing to a reader that had stopped")
            let written = server.streamConnections(key).first?.bytesWritten ?? 0
            print("STREAMS back-pressure (curl, SSE): server \(written) bytes written for 10 events read")
            #expect(written < 32 << 20)
            for index in 10..<1000 {
                let event = try await events.next()
                #expect(event?.id == String(index))
            }
        }
    }
}
