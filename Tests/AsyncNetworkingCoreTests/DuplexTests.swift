@testable import AsyncNetworkingTestSupport

/// Full duplex on curl: ``SessionManager/stream(for:from:trailers:options:)``
/// returns at the response head while the body sequence still produces, and each direction runs
/// on its own. Every exchange here would deadlock if one direction waited for the other — the
/// deadline catches that.
@Suite("Full duplex over HTTP/1.1", .enabled(if: defaultTransportIsCurl, "full duplex is a curl feature; URLSession refuses it (see DuplexRefusalTests)"))
struct DuplexTests {
    /// Reads exactly `count` bytes of the response body.
    static func read(_ count: Int, from body: inout ResponseBody.AsyncIterator) async throws -> Data {
        var received = Data()
        while received.count < count {
            guard let chunk = try await body.next() else { break }
            received.append(chunk)
        }
        return received
    }

    static func post(_ url: URL) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        return request
    }

    static let echoTotal = (0..<20).reduce(0) { $0 + "chunk \($1) ".utf8.count + $1 * 100 }

    @Test("an echo answered chunk by chunk: chunk k is sent only after echo k-1 came back")
    func echoChunkByChunk() async throws {
        try await DuplexTestServer.withManager { server, manager in
            try await withDeadline {
                // Nothing has been produced yet: the head arrives before the body has started.
                let (producer, echo, response) = try await manager.openDuplex(server.post("/echo"))
                #expect(response.statusCode == 200)
                var body = echo.makeAsyncIterator()
                for index in 0..<20 {
                    let chunk = Data("chunk \(index) ".utf8) + Data(repeating: UInt8(index), count: index * 100)
                    producer.yield(chunk)
                    #expect(try await Self.read(chunk.count, from: &body) == chunk, "echo \(index)")
                }
                #expect(echo.trailers.isEmpty, "no trailers before the end")
                producer.finish()
                #expect(try await body.next() == nil, "the response ends after the request's last chunk")
                #expect(echo.trailers["x-echoed-bytes"] == "\(Self.echoTotal)", "the response's trailers, after its end")
            }
            #expect(server.requests.first?.payload == Self.echoTotal)
        }
    }

    @Test("an echo answered byte by byte: each byte goes out alone once the one before came back")
    func echoByteByByte() async throws {
        try await DuplexTestServer.withManager { server, manager in
            try await withDeadline {
                let (producer, echo, _) = try await manager.openDuplex(server.post("/echo"))
                var body = echo.makeAsyncIterator()
                for byte in UInt8(0)..<64 {
                    producer.yield(Data([byte]))
                    #expect(try await Self.read(1, from: &body) == Data([byte]))
                }
                producer.finish()
                #expect(try await body.next() == nil)
            }
            // Each byte was its own chunk on the wire: the server answered it before the next existed.
            #expect(server.requests.first?.payload == 64)
        }
    }

    @Test("a server that speaks first: its head and first bytes arrive before any body is produced")
    func serverSpeaksFirst() async throws {
        try await DuplexTestServer.withManager { server, manager in
            try await withDeadline {
                let (producer, answer, response) = try await manager.openDuplex(server.post("/first"))
                #expect(response.statusCode == 200)
                var body = answer.makeAsyncIterator()
                #expect(try await Self.read(5, from: &body) == Data("hello".utf8))
                #expect(server.requests.first?.payload == 0, "no body byte was produced before the server spoke")
                producer.yield(Data(repeating: 7, count: 70_000))
                producer.yield(Data(repeating: 8, count: 30_000))
                producer.finish()
                var rest = Data()
                while let chunk = try await body.next() { rest.append(chunk) }
                #expect(String(decoding: rest, as: UTF8.self) == "got 100000")
            }
        }
    }

    @Test("the events of uploadTask(with:from:) arrive while the body is sent (the same duplex)")
    func eventsAreDuplexToo() async throws {
        try await DuplexTestServer.withManager { server, manager in
            let (chunks, producer) = AsyncStream<Data>.makeStream()
            let request = server.post("/echo")
            try await withDeadline {
                let handle = try await manager.uploadTask(with: request, from: chunks)
                producer.yield(Data("0".utf8))
                var next = 1
                var kinds: [String] = []
                for try await event in handle.events {
                    switch event {
                    case .response: kinds.append("response")
                    case .data(let data):
                        kinds.append("data \(String(decoding: data, as: UTF8.self))")
                        if next < 4 { producer.yield(Data("\(next)".utf8)); next += 1 } else { producer.finish() }
                    case .trailers(let fields): kinds.append("trailers \(fields["X-Echoed-Bytes"] ?? "")")
                    case .completed: kinds.append("completed")
                    default: break
                    }
                }
                #expect(kinds == ["response", "data 0", "data 1", "data 2", "data 3", "trailers 4", "completed"])
            }
        }
    }

    @Test("an early 413 stops the upload: its body is the result, the endless sequence is stopped", arguments: [413, 500])
    func earlyErrorStopsTheUpload(status: Int) async throws {
        try await DuplexTestServer.withManager { server, manager in
            let produced = SanitizedMutex(0)
            let request = server.post("/status/\(status)")
            try await withDeadline {
                let (answer, response) = try await manager.stream(for: request, from: EndlessChunks(produced: produced))
                #expect(response.statusCode == status)
                #expect(try await answer.collect() == Data("early".utf8))
            }
            // The transfer ended: the sequence is no longer asked for chunks (one may be in flight).
            #expect(await eventually { await manager.activeTransferCount == 0 })
            #expect(await eventually {
                let before = produced.withLock { $0 }
                try? await Task.sleep(for: .milliseconds(200))
                return produced.withLock { $0 } == before
            })
            #expect(produced.withLock { $0 } < 64 << 20, "bounded by the pipe and the socket buffers")

            // The awaiting upload API gives the same response as its result.
            let (body, awaited) = try await withDeadline {
                try await manager.upload(for: request, from: EndlessChunks(produced: SanitizedMutex(0)))
            }
            #expect(awaited.statusCode == status)
            #expect(body == Data("early".utf8))
        }
    }

    @Test("cancelling the task that reads the response ends both directions and the sequence")
    func cancellingTheReaderEndsEverything() async throws {
        try await DuplexTestServer.withManager { server, manager in
            let terminated = SanitizedMutex(false)
            let (chunks, producer) = AsyncStream<Data>.makeStream()
            producer.onTermination = { _ in terminated.withLock { $0 = true } }
            let request = server.post("/echo")
            let echoed = SanitizedMutex(0)
            let reader = Task {
                let (echo, _) = try await manager.stream(for: request, from: chunks)
                producer.yield(Data("first".utf8))
                for try await chunk in echo { echoed.withLock { $0 += chunk.count } }
            }
            #expect(await eventually { echoed.withLock { $0 } == 5 })
            reader.cancel()
            let error = await expectNetworkingError { try await withDeadline { try await reader.value } }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { terminated.withLock { $0 } }, "the body sequence's iteration was cancelled")
            #expect(await eventually { server.closedConnections == 1 }, "the connection was closed: both directions ended")
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test("cancelling while waiting for the head ends the transfer and the sequence")
    func cancellingBeforeTheHead() async throws {
        let server = try BodyTapServer() // reads the body as it comes; answers only after its end
        defer { server.stop() }
        let manager = SessionManager()
        let terminated = SanitizedMutex(false)
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        producer.onTermination = { _ in terminated.withLock { $0 = true } }
        let request = DuplexTests.post(server.url("/tap"))
        let waiter = Task { try await manager.stream(for: request, from: chunks) }
        producer.yield(Data(repeating: 1, count: 1_000))
        #expect(await eventually { server.received == 1_000 }, "the body is being sent; no head came")
        waiter.cancel()
        let error = await expectNetworkingError { try await withDeadline { try await waiter.value } }
        #expect(error?.kind == .cancelled)
        #expect(await eventually { terminated.withLock { $0 } }, "the body sequence's iteration was cancelled")
        #expect(await eventually { await manager.activeTransferCount == 0 })
        await manager.invalidateAndCancel()
    }
}

/// URLSession (and stubs) cannot read a response while a sequence body is sent: FoundationNetworking
/// spools it first. Full duplex is refused there with a typed error, before anything is sent.
@Suite("Full duplex refused where the transport cannot do it")
struct DuplexRefusalTests {
    @Test func urlSessionRefusesFullDuplexBeforeSending() async throws {
        try await DuplexTestServer.withManager(transport: .urlSession) { server, manager in
            #expect(!manager.supportsFullDuplex)
            let chunks = AsyncStream<Data> { $0.yield(Data("x".utf8)); $0.finish() }
            let error = await expectNetworkingError {
                try await manager.stream(for: server.post("/echo"), from: chunks)
            }
            #expect(error?.kind == .unsupportedOperation)
            #expect(server.requests.isEmpty, "nothing was sent")
        }
    }

    @Test func stubsRefuseFullDuplexAndTrailers() async throws {
        let stubs = HTTPStubs()
        let manager = SessionManager(stubs: stubs)
        #expect(!manager.supportsFullDuplex)
        let request = DuplexTests.post(URL(string: "http://example.invalid/echo")!)
        let chunks = AsyncStream<Data> { $0.finish() }
        let duplex = await expectNetworkingError { try await manager.stream(for: request, from: chunks) }
        #expect(duplex?.kind == .unsupportedOperation)
        let trailers = await expectNetworkingError {
            try await manager.upload(for: request, from: chunks, trailers: .fields(["X-A": "1"]))
        }
        #expect(trailers?.kind == .unsupportedOperation)
        await manager.invalidateAndCancel()
        withExtendedLifetime(stubs) {}
    }

    @Test func theDefaultTransportSaysWhetherItIsFullDuplex() async {
        let manager = SessionManager()
        #expect(manager.supportsFullDuplex == (manager.transport == .curl))
        await manager.invalidateAndCancel()
    }
}
