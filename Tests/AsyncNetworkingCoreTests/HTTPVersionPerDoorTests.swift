#if os(Linux)
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// The rule: an awaiting call that collects its body — the manager's `data(for:)`, `fetch`,
/// `upload(for:from:)`, and every awaiting ``HTTPClient`` call: verbs, `send`, uploads, multipart
/// posts — gets HTTP/2 where the server offers it, as curl, browsers and AsyncHTTPClient do. A
/// transfer the library may pause for its reader (an event stream, a body sequence, a download)
/// gets HTTP/2 too where libcurl holds a paused stream cheaply (8.1 and later), else HTTP/1.1
/// (libcurl 7.88's fixed 32 MiB stream windows; Transports.md). Asserted from each call's
/// completion metrics against nginx offering `h2` over TLS.
@Suite(.serialized, .enabled(if: NginxTestServer.isAvailable, "needs nginx, openssl and python3 (an HTTP/2 server over TLS)"))
struct HTTPVersionPerDoorTests {
    static let file = Data((0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
    static let windowed = CurlLibrary.pausesHTTP2StreamsCheaply ? "HTTP/2" : "HTTP/1.1"

    /// Each door, and the protocol it must have run.
    enum Door: String, CaseIterable, Sendable {
        case managerData, managerFetch, managerUpload, managerBatch
        case clientGet, clientSend, clientRequest, clientUpload, clientMultipart
        case managerDataTask, managerStream, managerDownload, clientTask, clientDownload

        var collectsItsBody: Bool {
            switch self {
            case .managerDataTask, .managerStream, .managerDownload, .clientTask, .clientDownload: false
            default: true
            }
        }
    }

    @Test("each door runs the protocol its rule says", arguments: Door.allCases)
    func protocolPerDoor(door: Door) async throws {
        try await withNginxAndManager(files: ["f.bin": Self.file]) { server, manager in
            let activity = await manager.transferActivity()
            try await Self.run(door, server: server, manager: manager)
            let connection = try #require(await completedConnections(activity, count: 1).first ?? nil)
            #expect(connection.httpVersion == (door.collectsItsBody ? "HTTP/2" : Self.windowed), "\(door): \(connection)")
        }
    }

    @Test("with pausable transfers on HTTP/2, every door runs HTTP/2", arguments: Door.allCases)
    func everyDoorOnHTTP2(door: Door) async throws {
        try await withNginxAndManager(files: ["f.bin": Self.file], http2: HTTP2Options(pausableTransfers: .http2)) { server, manager in
            let activity = await manager.transferActivity()
            try await Self.run(door, server: server, manager: manager)
            let connection = try #require(await completedConnections(activity, count: 1).first ?? nil)
            #expect(connection.httpVersion == "HTTP/2", "\(door)")
        }
    }

    /// The libcurl version decides, in one place, whether a paused HTTP/2 stream is cheap.
    @Test("the windowed rule follows the libcurl version")
    func theVersionRule() {
        #expect(!CurlLibrary.pausedHTTP2StreamsAreCheap(in: 0x07_58_01)) // 7.88.1
        #expect(!CurlLibrary.pausedHTTP2StreamsAreCheap(in: 0x08_00_01))
        #expect(CurlLibrary.pausedHTTP2StreamsAreCheap(in: 0x08_01_00))
        #expect(CurlLibrary.pausedHTTP2StreamsAreCheap(in: 0x08_0B_01))
        #expect(CurlLibrary.versionNumber > 0x07_44_00, "libcurl is loaded and at least 7.68")
    }

    private static func run(_ door: Door, server: NginxTestServer, manager: SessionManager) async throws {
        let client = HTTPClient(manager: manager)
        var post = URLRequest(url: server.url("post"))
        post.httpMethod = "POST"
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("doors-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        switch door {
        case .managerData:
            #expect(try await manager.data(from: server.url("f.bin")).0 == file)
        case .managerFetch:
            #expect(try await manager.fetch(from: server.url("f.bin")).0 == file)
        case .managerUpload:
            #expect(try await manager.upload(for: post, from: Data("hello".utf8)).1.statusCode == 200)
        case .managerBatch:
            #expect(try await manager.data(for: [URLRequest(url: server.url("f.bin"))]).first?.0 == file)
        case .clientGet:
            #expect(try await client.get(server.url("f.bin").absoluteString, serializer: DataResponseSerializer()) == file)
        case .clientSend:
            #expect(try await client.send(URLRequest(url: server.url("f.bin")), serializer: DataResponseSerializer()).value == file)
        case .clientRequest:
            #expect(try await client.request(.get, server.url("f.bin").absoluteString).value == file)
        case .clientUpload:
            _ = try await client.upload(.data(Data("hello".utf8)), to: server.url("post").absoluteString, serializer: DataResponseSerializer())
        case .clientMultipart:
            _ = try await client.post(server.url("post").absoluteString, serializer: DataResponseSerializer()) { form in
                form.append("value", name: "field")
            }
        case .managerDataTask:
            #expect(try await BodyMatrixRig.collect(manager.dataTask(with: URLRequest(url: server.url("f.bin")))) == file)
        case .managerStream:
            let (body, _) = try await manager.stream(from: server.url("f.bin"))
            #expect(try await body.collect() == file)
        case .managerDownload:
            let (saved, _) = try await manager.download(from: server.url("f.bin"), to: .file(directory.appendingPathComponent("f.bin")))
            #expect(try Data(contentsOf: saved) == file)
        case .clientTask:
            let task = try await client.task(.get, server.url("f.bin").absoluteString, serializer: DataResponseSerializer())
            #expect(try await task.value == file)
        case .clientDownload:
            let saved = try await client.download(server.url("f.bin").absoluteString, to: .file(directory.appendingPathComponent("g.bin")))
            #expect(try Data(contentsOf: saved.value) == file)
        }
    }
}
#endif
