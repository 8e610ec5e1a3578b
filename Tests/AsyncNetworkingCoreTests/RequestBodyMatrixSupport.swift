@testable import AsyncNetworkingTestSupport

/// One way of sending a body: a body source through a front door (see `RequestBodyMatrixTests`).
enum BodyDoor: String, CaseIterable, Sendable, CustomTestStringConvertible {
    // The request's own body.
    case dataHTTPBody, dataBodyStream, dataTaskHTTPBody, dataTaskBodyStream, streamBodyStream, fetchBodyStream
    case downloadBodyStream, batchBodyStream, clientSendHTTPBody, clientAdapterBodyStream
    // A body given to the call.
    case uploadData, uploadTaskData, uploadFile, uploadTaskFile
    case uploadSequence, uploadSequenceSpooled, uploadSequenceFactory, uploadTaskSequence
    case uploadStreamSpooled, uploadStreamChunked, uploadBodyStreamOnce, uploadBodyStreamFactory
    case multipart, multipartChunked, duplex, duplexFactory
    case clientUploadData, clientUploadFile, clientUploadStream

    var testDescription: String { rawValue }

    /// Whether this door reads its body once only (so a re-send cannot have it) on `transport`.
    private func readsOnce(on transport: MatrixTransport) -> Bool {
        switch self {
        case .dataBodyStream, .dataTaskBodyStream, .streamBodyStream, .fetchBodyStream, .downloadBodyStream,
             .batchBodyStream, .clientAdapterBodyStream, .uploadBodyStreamOnce:
            true
        case .uploadSequence, .uploadTaskSequence, .duplex:
            transport == .curl // streamed on curl; spooled to a file (re-sendable) elsewhere
        default:
            false
        }
    }

    func expectation(route: BodyRoute, transport: MatrixTransport) -> BodyExpectation {
        if self == .duplex || self == .duplexFactory, transport != .curl { return .refused(.unsupportedOperation) }
        if route != .direct, readsOnce(on: transport) { return .refused(.bodyStreamNotReplayable) }
        return .whole
    }

    /// The bytes the server must receive for `payload` (a multipart form's encoding).
    func expectedBytes(_ payload: Data) -> Data {
        switch self {
        case .multipart, .multipartChunked: (try? Self.form(payload).encoded()) ?? Data()
        default: payload
        }
    }

    static func form(_ payload: Data) -> MultipartFormData {
        var form = MultipartFormData(boundary: "matrix-boundary-7f3a")
        form.append("value", name: "field")
        form.append(payload, name: "file", filename: "payload.bin", mimeType: "application/octet-stream")
        return form
    }

    /// Sends `payload` to `url` through this door and returns the response body.
    func send(_ payload: Data, to url: URL, rig: BodyMatrixRig) async throws(NetworkingError) -> Data {
        let manager = rig.manager
        var post = URLRequest(url: url)
        post.httpMethod = "POST"
        var withBody = post
        withBody.httpBody = payload
        var withStream = post
        withStream.httpBodyStream = InputStream(data: payload)
        let chunks = Self.chunks(payload)
        switch self {
        case .dataHTTPBody: return try await manager.data(for: withBody).0
        case .dataBodyStream: return try await manager.data(for: withStream).0
        case .dataTaskHTTPBody: return try await BodyMatrixRig.collect(manager.dataTask(with: withBody))
        case .dataTaskBodyStream: return try await BodyMatrixRig.collect(manager.dataTask(with: withStream))
        case .streamBodyStream:
            let (body, _) = try await manager.stream(for: withStream)
            return try await body.collect()
        case .fetchBodyStream: return try await manager.fetch(withStream).0
        case .downloadBodyStream:
            let target = rig.directory.appendingPathComponent(UUID().uuidString)
            let (file, _) = try await manager.download(for: withStream, to: .file(target))
            return (try? Data(contentsOf: file)) ?? Data()
        case .batchBodyStream: return try await manager.data(for: [withStream], width: 1)[0].0
        case .clientSendHTTPBody:
            return try await HTTPClient(manager: manager).send(withBody, serializer: DataResponseSerializer()).value
        case .clientAdapterBodyStream:
            var client = HTTPClient(manager: manager)
            client.pipeline.adapters.append(RequestAdapterClosure { request, _ in
                var adapted = request
                adapted.httpBodyStream = InputStream(data: payload)
                return adapted
            })
            client.pipeline.retryPolicy = DefaultRetryPolicy(maxAttempts: 1)
            return try await client.send(post, serializer: DataResponseSerializer()).value
        case .uploadData: return try await manager.upload(for: post, from: payload).0
        case .uploadTaskData: return try await BodyMatrixRig.collect(manager.uploadTask(with: post, from: payload))
        case .uploadFile: return try await manager.upload(for: post, fromFile: rig.file(payload)).0
        case .uploadTaskFile: return try await BodyMatrixRig.collect(manager.uploadTask(with: post, fromFile: rig.file(payload)))
        case .uploadSequence: return try await manager.upload(for: post, from: chunks).0
        case .uploadSequenceSpooled: return try await manager.upload(for: post, from: chunks, mode: .spooled).0
        case .uploadSequenceFactory: return try await manager.upload(for: post, fromSequence: { Self.chunks(payload) }).0
        case .uploadTaskSequence: return try await BodyMatrixRig.collect(manager.uploadTask(with: post, from: chunks))
        case .uploadStreamSpooled: return try await manager.upload(for: post, fromStream: { InputStream(data: payload) }).0
        case .uploadStreamChunked:
            return try await manager.upload(for: post, fromStream: { InputStream(data: payload) }, mode: .chunked).0
        case .uploadBodyStreamOnce: return try await manager.upload(for: post, bodyStream: .once(InputStream(data: payload))).0
        case .uploadBodyStreamFactory:
            return try await manager.upload(for: post, bodyStream: BodyStreamProducer { _ in InputStream(data: payload) }).0
        case .multipart: return try await manager.upload(multipart: Self.form(payload), for: post).0
        case .multipartChunked: return try await manager.upload(multipart: Self.form(payload), for: post, encoding: .chunked).0
        case .duplex:
            let (body, _) = try await manager.stream(for: post, from: chunks)
            return try await body.collect()
        case .duplexFactory:
            let (body, _) = try await manager.stream(for: post, fromSequence: { Self.chunks(payload) })
            return try await body.collect()
        case .clientUploadData:
            return try await HTTPClient(manager: manager).upload(.data(payload), to: url, serializer: DataResponseSerializer())
        case .clientUploadFile:
            return try await HTTPClient(manager: manager).upload(.file(rig.file(payload)), to: url, serializer: DataResponseSerializer())
        case .clientUploadStream:
            return try await HTTPClient(manager: manager).upload(
                .stream(mode: .chunked) { InputStream(data: payload) }, to: url, serializer: DataResponseSerializer()
            )
        }
    }

    /// The payload as a sequence of 1,000-byte chunks.
    static func chunks(_ payload: Data) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for start in stride(from: 0, to: payload.count, by: 1_000) {
                continuation.yield(payload.subdata(in: start..<Swift.min(payload.count, start + 1_000)))
            }
            continuation.finish()
        }
    }
}

/// A manager on one transport, the loopback server (or stubs playing it), the credential, and
/// what the target received.
struct BodyMatrixRig: Sendable {
    let server: LoopbackServer
    let stubs: HTTPStubs?
    let manager: SessionManager
    let directory: URL

    static func with(_ transport: MatrixTransport, _ body: @escaping @Sendable (BodyMatrixRig) async throws -> Void) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("body-matrix-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var stubs: HTTPStubs?
        let manager: SessionManager
        switch transport {
        case .curl: manager = SessionManager(transport: .curl)
        case .urlSession: manager = SessionManager(transport: .urlSession)
        case .stubs:
            let registry = HTTPStubs()
            Self.play(server, on: registry)
            stubs = registry
            manager = SessionManager(stubs: registry)
        }
        await manager.setCredential(URLCredential(user: "u", password: "p", persistence: .forSession), forHost: "127.0.0.1")
        let rig = BodyMatrixRig(server: server, stubs: stubs, manager: manager, directory: directory)
        do {
            try await withDeadline { try await body(rig) }
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
        await manager.invalidateAndCancel()
        _ = stubs
    }

    func url(_ route: BodyRoute) -> URL {
        switch route {
        case .direct: server.url("/echo")
        case .redirect307: server.url("/redirect-to?url=%2Fecho&status=307")
        case .redirect308: server.url("/redirect-to?url=%2Fecho&status=308")
        case .credentialRetry: server.url("/auth-echo/u/p")
        }
    }

    /// Forgets what was recorded.
    func reset() {
        server.clearRequests()
        stubs?.clearRecordedRequests()
    }

    /// Every body the route's target received (the echo, or the echo behind the challenge).
    func bodiesReceived(at route: BodyRoute) -> [(length: Int, checksum: UInt64)] {
        let path = route == .credentialRetry ? "/auth-echo/u/p" : "/echo"
        if let stubs {
            return stubs.recordedRequests(nil, path).map { ($0.body?.count ?? 0, Checksum.fnv1a64($0.body ?? Data())) }
        }
        return server.requests.filter { $0.path == path }.map { ($0.bodyLength, $0.bodyChecksum) }
    }

    /// A file holding `payload`.
    func file(_ payload: Data) -> URL {
        let url = directory.appendingPathComponent("\(UUID().uuidString).bin")
        try? payload.write(to: url)
        return url
    }

    /// The echo's length and checksum.
    static func echo(_ reply: Data) throws -> (length: Int, checksum: UInt64) {
        let object = try #require(try JSONSerialization.jsonObject(with: reply) as? [String: Any], "\(String(decoding: reply, as: UTF8.self))")
        let length = try #require(object["bodyLength"] as? Int)
        let checksum = try #require((object["bodyChecksum"] as? String).flatMap { UInt64($0) })
        return (length, checksum)
    }

    /// Reads a handle's events to the end; the body.
    static func collect(_ handle: TransferHandle) async throws(NetworkingError) -> Data {
        var body = Data()
        var iterator = handle.events.makeAsyncIterator()
        while let event = try await iterator.next() {
            if case .data(let chunk) = event { body.append(chunk) }
        }
        return body
    }

    /// Stubs answering as the loopback server's `/echo`, `/redirect-to` and `/auth-echo/u/p` do.
    private static func play(_ server: LoopbackServer, on stubs: HTTPStubs) {
        @Sendable func echo(_ request: StubRequest) -> StubResponse {
            let body = request.body ?? Data()
            return .json(Data(#"{"bodyLength":\#(body.count),"bodyChecksum":"\#(Checksum.fnv1a64(body))"}"#.utf8))
        }
        stubs.on(nil, "/echo") { echo($0) }
        stubs.on(nil, "/redirect-to") { request in
            let status = request.queryItems.first { $0.name == "status" }?.value.flatMap { Int($0) } ?? 302
            let target = request.queryItems.first { $0.name == "url" }?.value ?? "/"
            return .status(status, headers: ["Location": target])
        }
        stubs.on(nil, "/auth-echo/u/p") { request in
            let expected = "Basic " + Data("u:p".utf8).base64EncodedString()
            guard request.header("Authorization") == expected else {
                return .status(401, headers: ["WWW-Authenticate": "Basic realm=\"matrix\""])
            }
            return echo(request)
        }
        _ = server
    }
}
