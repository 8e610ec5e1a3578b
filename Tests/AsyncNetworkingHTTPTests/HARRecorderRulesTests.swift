@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingHTTP

/// Two rules of ``HARRecorder`` on the run's transport:
///
/// - Redaction: a query component without `=` (`?sk_live_…`) is a value — a bare token — and is
///   replaced whole by `…`, in `url` and in `queryString`, as a `name=value` pair keeps its name
///   only; every other place that prints URLs (error descriptions, ``LoggingMonitor``,
///   `cURLDescription()`, ``Request``'s description) hides it too.
/// - Sizes (HAR 1.2): `response.bodySize` is the body as it came off the wire (before content
///   decoding), or `-1` when the transport does not say; `content.size` is the decoded length;
///   `request.bodySize` is the body bytes sent, `-1` when unknown.
struct HARRecorderRulesTests {
    static let token = "sk_live_s3cr3tTOKEN"

    static func entry(_ har: HARRecorder, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let entries = try HARRecorderTests.entries(try har.harData(), sourceLocation: sourceLocation)
        return try #require(entries.last, sourceLocation: sourceLocation)
    }

    static func part(_ entry: [String: Any], _ name: String) -> [String: Any] { entry[name] as? [String: Any] ?? [:] }

    @Test func aBareQueryTokenIsRedactedInTheURLAndTheQueryString() async throws {
        let har = HARRecorder()
        try await withServerAndManager { server, manager in
            let recording = await har.record(manager)
            _ = try await manager.data(from: server.url("/bytes/3?\(Self.token)&page=2&\(Self.token)2"))
            await manager.invalidateAndCancel()
            await recording.value
            let text = String(decoding: try har.harData(), as: UTF8.self)
            #expect(!text.contains(Self.token), "\(text)")
            let request = Self.part(try Self.entry(har), "request")
            #expect((request["url"] as? String) == "http://127.0.0.1:\(server.port)/bytes/3?…&page=…&…")
            let query = try #require(request["queryString"] as? [[String: String]])
            #expect(query.map { $0["name"] ?? "?" } == ["…", "page", "…"])
            #expect(query.map { $0["value"] ?? "?" } == ["", "…", ""])
        }
    }

    @Test func aBareQueryTokenIsRedactedInAPipelineRecordingToo() async throws {
        let har = HARRecorder()
        try await withServerAndManager { server, manager in
            var client = HTTPClient(manager: manager, baseURL: server.baseURL)
            client.pipeline.monitors.append(har)
            _ = try await client.send(URLRequest(url: server.url("/bytes/2?\(Self.token)")), serializer: DataResponseSerializer())
            let text = String(decoding: try har.harData(), as: UTF8.self)
            #expect(!text.contains(Self.token), "\(text)")
        }
    }

    /// Every printer of URLs hides a bare token, as it hides a value.
    @Test func everyPrinterOfURLsHidesABareToken() throws {
        let url = try #require(URL(string: "https://api.example.com/cb?\(Self.token)&a=1"))
        var request = URLRequest(url: url)
        request.setValue("x", forHTTPHeaderField: "X-Plain")
        let curl = request.cURLDescription()
        #expect(!curl.contains(Self.token), "\(curl)")
        #expect(curl.contains("https://api.example.com/cb?…&a=…"), "\(curl)")
        let error = NetworkingError(.unacceptableStatusCode(500), request: request)
        #expect(!String(describing: error).contains(Self.token))
        let lines = SanitizedMutex<[String]>([])
        let monitor = LoggingMonitor(level: .debug) { line in lines.withLock { $0.append(line) } }
        monitor.receive(.adapted(RequestID.next(), attempt: 1, request))
        let logged = lines.withLock { $0 }.joined(separator: "\n")
        #expect(!logged.isEmpty && !logged.contains(Self.token), "\(logged)")
        let described = Request<Data>.get("cb").query(Self.token, nil).description
        #expect(!described.contains(Self.token), "\(described)")
        #expect(described == "GET cb?…")
        let shown = HARRecorder(showsSecrets: true)
        #expect(shown.showsSecrets, "showsSecrets keeps everything (checked in the recorder's own tests)")
    }

    /// A 100,000-byte body sent gzip-encoded: `content.size` is what was decoded; `bodySize` is
    /// the encoded length on curl (which counts the bytes it received) and `-1` on URLSession
    /// (which decodes below the library and reports no count).
    @Test func aCompressedBodysSizeIsWhatCameOffTheWire() async throws {
        let har = HARRecorder()
        let pipelineHAR = HARRecorder()
        try await withServerAndManager { server, manager in
            let recording = await har.record(manager)
            let (body, response) = try await manager.data(from: server.url("/gzip/100000"))
            #expect(body.count == 100_000)
            let wire = try #require(Int(response.value(forHTTPHeaderField: "Content-Length") ?? ""), "the encoded length")
            #expect(wire < 10_000)
            var client = HTTPClient(manager: manager, baseURL: server.baseURL)
            client.pipeline.monitors.append(pipelineHAR)
            _ = try await client.send(URLRequest(url: server.url("/gzip/100000")), serializer: DataResponseSerializer())
            await manager.invalidateAndCancel()
            await recording.value
            let expected = manager.transport == .curl ? wire : -1
            for recorder in [har, pipelineHAR] {
                let entry = try Self.entry(recorder)
                let harResponse = Self.part(entry, "response")
                #expect(harResponse["bodySize"] as? Int == expected, "\(harResponse)")
                #expect(Self.part(harResponse, "content")["size"] as? Int == 100_000)
                #expect(Self.part(entry, "request")["bodySize"] as? Int == 0, "a GET sends no body")
            }
        }
    }

    /// Without a content coding the bytes on the wire are the decoded bytes, on every transport.
    @Test func anUncodedBodysSizeIsItsLength() async throws {
        let har = HARRecorder()
        try await withServerAndManager { server, manager in
            let recording = await har.record(manager)
            _ = try await manager.data(from: server.url("/bytes/1234"))
            var upload = URLRequest(url: server.url("/upload"))
            upload.httpMethod = "POST"
            _ = try await manager.upload(for: upload, from: Data(repeating: 1, count: 777))
            await manager.invalidateAndCancel()
            await recording.value
            let entries = try HARRecorderTests.entries(try har.harData())
            #expect(entries.count == 2)
            guard entries.count == 2 else { return }
            let get = Self.part(entries[0], "response")
            #expect(get["bodySize"] as? Int == 1234)
            #expect(Self.part(get, "content")["size"] as? Int == 1234)
            #expect(Self.part(entries[1], "request")["bodySize"] as? Int == 777)
        }
    }

    /// A request whose body comes from a stream and that failed before any metrics: its size is
    /// unknown (`-1`), not `0`.
    @Test func anUnknownRequestBodySizeIsMinusOne() throws {
        var request = URLRequest(url: URL(string: "http://127.0.0.1:1/upload")!)
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data(count: 10))
        let entry = HAREntryBuilder(showsSecrets: false).entry(request: request, started: Date(), response: nil, metrics: nil)
        #expect(entry.request.bodySize == -1)
        var plain = URLRequest(url: URL(string: "http://127.0.0.1:1/")!)
        plain.httpBody = Data(count: 5)
        #expect(HAREntryBuilder(showsSecrets: false).entry(request: plain, started: Date(), response: nil, metrics: nil).request.bodySize == 5)
    }
}
