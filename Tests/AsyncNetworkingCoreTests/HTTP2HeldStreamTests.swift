@testable import AsyncNetworkingTestSupport
@testable import CurlTransport
@testable import AsyncNetworkingCore

/// Rule (the default, ``HTTP2Options/PausableTransfers-swift.enum/http1_1``): a
/// transfer that flow control may pause (its consumer can hold it back: an event stream, a body
/// sequence, a download) does not run as an HTTP/2 stream on curl, because libcurl 7.88 lets up
/// to its fixed 32 MiB stream window of a paused stream arrive and wait in memory (and shares the
/// connection with it until then); it runs over HTTP/1.1, where the transfer's own window and TCP
/// back-pressure bound it. A transfer that is never paused (a body collected in memory) keeps
/// HTTP/2. Against a real nginx that offers `h2` over TLS (skipped without nginx). The
/// ``HTTP2Options/PausableTransfers-swift.enum/http2`` alternative: `HTTP2MultiplexingTests`.
@Suite(.enabled(if: NginxTestServer.isAvailable, "needs nginx, openssl and python3 (an HTTP/2 server over TLS)"))
struct HTTP2HeldStreamTests {
    static let file = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

    /// Runs `body` with an nginx serving `files` (default: ``file`` as `f.bin`) and a curl manager
    /// trusting the test CA.
    private func withNginx(
        files: [String: Data] = ["f.bin": Self.file],
        _ body: @escaping @Sendable (NginxTestServer, SessionManager) async throws -> Void
    ) async throws {
        try await withNginxAndManager(files: files, body)
    }

    /// The HTTP version of the next transfer to complete on `activity`.
    private static func nextVersion(_ activity: TransferActivityStream) async -> String? {
        await completedConnections(activity, count: 1).first??.httpVersion
    }

    /// Reads a handle's events to the end: the body and the negotiated HTTP version.
    private static func drain(_ handle: TransferHandle) async throws -> (Data, String?) {
        var body = Data()
        var version: String?
        for try await event in handle.events {
            switch event {
            case .data(let chunk): body.append(chunk)
            case .completed(let metrics): version = metrics.connection?.httpVersion
            default: break
            }
        }
        return (body, version)
    }

    @Test func aCollectedBodyKeepsHTTP2() async throws {
        // The control: this server and this manager do negotiate HTTP/2 for a transfer never paused.
        try await withNginx { server, manager in
            let activity = await manager.transferActivity()
            let (body, _) = try await manager.data(from: server.url("f.bin"))
            #expect(body == Self.file)
            #expect(await Self.nextVersion(activity) == "HTTP/2")
        }
    }

    @Test func anEventStreamRunsOverHTTP1() async throws {
        try await withNginx { server, manager in
            let (body, version) = try await Self.drain(try await manager.dataTask(with: URLRequest(url: server.url("f.bin"))))
            #expect(body == Self.file)
            #expect(version == "HTTP/1.1")
        }
    }

    @Test func aBodySequenceRunsOverHTTP1() async throws {
        try await withNginx { server, manager in
            let activity = await manager.transferActivity()
            let (sequence, response) = try await manager.stream(from: server.url("f.bin"))
            #expect(response.statusCode == 200)
            var body = Data()
            for try await chunk in sequence { body.append(chunk) }
            #expect(body == Self.file)
            #expect(await Self.nextVersion(activity) == "HTTP/1.1")
        }
    }

    @Test func anUploadWithEventsRunsOverHTTP1() async throws {
        // nginx answers a POST to a static file with 405; the protocol is what counts here.
        try await withNginx { server, manager in
            var request = URLRequest(url: server.url("f.bin"))
            request.httpMethod = "POST"
            let (_, version) = try await Self.drain(try await manager.uploadTask(with: request, from: Data("x".utf8)))
            #expect(version == "HTTP/1.1")
        }
    }

    @Test func aDownloadRunsOverHTTP1() async throws {
        try await withNginx { server, manager in
            let target = FileManager.default.temporaryDirectory.appendingPathComponent("h2held-\(UUID().uuidString).bin")
            defer { try? FileManager.default.removeItem(at: target) }
            let (_, version) = try await Self.drain(try await manager.downloadTask(with: URLRequest(url: server.url("f.bin")), to: .file(target)))
            #expect(try Data(contentsOf: target) == Self.file)
            #expect(version == "HTTP/1.1")
        }
    }

    @Test func unreadStreamsDoNotHoldBackTheOneBeingRead() async throws {
        // Eight streams of 8 MiB, seven left unread (each fills its window and pauses): the one read
        // completes, and a held one still completes intact once read.
        let big = Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 1) })
        try await withNginx(files: ["big.bin": big]) { server, manager in
            var handles: [TransferHandle] = []
            for _ in 0..<8 { handles.append(try await manager.dataTask(with: URLRequest(url: server.url("big.bin")))) }
            let (first, firstVersion) = try await Self.drain(handles[0])
            #expect(first == big)
            #expect(firstVersion == "HTTP/1.1")
            let (held, _) = try await Self.drain(handles[7])
            #expect(held == big)
            for handle in handles { handle.cancel() }
        }
    }
}

#if os(Linux)
/// The same rule where the request is built, without a server (runs everywhere libcurl loads):
/// an attempt with a receive window asks libcurl for HTTP/1.1; one without keeps HTTP/2 over TLS.
@Suite struct HTTP2HeldStreamRuleTests {
    @Test func anAttemptWithAWindowAsksForHTTP1AndOneWithoutKeepsHTTP2OverTLS() throws {
        let transport = try CurlSessionTransport(configuration: .ephemeral, fallback: DispatchQueue(label: "test")) { _ in }
        let request = URLRequest(url: URL(string: "https://127.0.0.1:9/f.bin")!)
        for window in [16 << 10, 1 << 20, 3 << 20] {
            let (held, _) = try transport.makeRequest(request, upload: .none, fileLength: 0, window: window)
            #expect(held.options.httpVersion == .http1_1)
        }
        let (uploadHeld, _) = try transport.makeRequest(request, upload: .data(Data("x".utf8)), fileLength: 0, window: 3 << 20)
        #expect(uploadHeld.options.httpVersion == .http1_1)
        let (collected, _) = try transport.makeRequest(request, upload: .none, fileLength: 0, window: nil)
        #expect(collected.options.httpVersion == .automatic)
        #expect(held(transport, request).options.keepsWindowOverHTTP2)
    }

    @Test func withPausableTransfersOnHTTP2AnAttemptWithAWindowAsksForHTTP2AndDropsItsWindowThere() throws {
        let transport = try CurlSessionTransport(
            configuration: .ephemeral, http2: HTTP2Options(pausableTransfers: .http2), fallback: DispatchQueue(label: "test")
        ) { _ in }
        let request = URLRequest(url: URL(string: "https://127.0.0.1:9/f.bin")!)
        let attempt = held(transport, request)
        #expect(attempt.options.httpVersion == .automatic)
        #expect(attempt.options.receiveWindow == 3 << 20) // still applies if ALPN answers HTTP/1.1
        #expect(!attempt.options.keepsWindowOverHTTP2)
        #expect(attempt.options.waitsForMultiplexing)
        // Cleartext never waits to multiplex (libcurl would wait for the first response head).
        let cleartext = held(transport, URLRequest(url: URL(string: "http://127.0.0.1:9/f.bin")!))
        #expect(!cleartext.options.waitsForMultiplexing)
    }

    @Test func droppingTheWindowUnpausesAWindowPausedTransfer() {
        var flow = CurlFlowControl(window: 16 << 10)
        let filled = flow.admit(16 << 10)
        let refused = !flow.admit(1)
        #expect(filled && refused && flow.mask == 1)
        let changed = flow.removeWindow()
        #expect(changed && flow.mask == 0)
        let admitted = flow.admit(1 << 20)
        #expect(admitted)
    }

    private func held(_ transport: CurlSessionTransport, _ request: URLRequest) -> CurlRequest {
        try! transport.makeRequest(request, upload: .none, fileLength: 0, window: 3 << 20).0
    }
}
#endif
