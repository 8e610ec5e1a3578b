@testable import AsyncNetworkingTestSupport

@Suite("HTTP client: verbs, base URL, handles")
struct HTTPClientTests {
    // MARK: Verbs

    @Test(arguments: [HTTPMethod.get, .delete])
    func queryVerbsSendParametersInTheQuery(method: HTTPMethod) async throws {
        try await withClient { server, client in
            let parameters: Parameters = ["q": "swift async", "page": 2]
            let echo: Echo = method == .get
                ? try await client.get("echo", parameters: parameters)
                : try await client.delete("echo", parameters: parameters)
            #expect(echo.method == method.rawValue)
            #expect(echo.query == ["q": "swift async", "page": "2"])
            #expect(echo.bodyLength == 0)
            #expect(server.requests.last?.target == "/echo?page=2&q=swift%20async")
        }
    }

    @Test(arguments: [HTTPMethod.post, .put, .patch])
    func bodyVerbsSendParametersAsAForm(method: HTTPMethod) async throws {
        try await withClient { _, client in
            let parameters: Parameters = ["q": "swift async", "page": 2]
            let echo: Echo = switch method {
            case .post: try await client.post("echo", parameters: parameters)
            case .put: try await client.put("echo", parameters: parameters)
            default: try await client.patch("echo", parameters: parameters)
            }
            #expect(echo.method == method.rawValue)
            #expect(echo.query.isEmpty)
            #expect(echo.body == "page=2&q=swift%20async")
            #expect(echo.headers["content-type"] == "application/x-www-form-urlencoded")
        }
    }

    @Test func headReturnsTheResponseHeadWithoutABody() async throws {
        try await withClient { server, client in
            let response = try await client.head("bytes/1234")
            #expect(response.statusCode == 200)
            #expect(response.value(forHTTPHeaderField: "Content-Length") == "1234")
            let value = try await client.head("bytes/10", serializer: JSONResponseSerializer())
            #expect(value == .null, "an empty HEAD body is JSON null, not an error")
            #expect(server.requests.map(\.method) == ["HEAD", "HEAD"])
        }
    }

    @Test func everyVerbHasASerializerForm() async throws {
        try await withClient { server, client async throws in
            let serializer = DecodableResponseSerializer(Echo.self)
            #expect(try await client.get("echo", serializer: serializer).method == "GET")
            #expect(try await client.post("echo", serializer: serializer).method == "POST")
            #expect(try await client.put("echo", serializer: serializer).method == "PUT")
            #expect(try await client.patch("echo", serializer: serializer).method == "PATCH")
            #expect(try await client.delete("echo", serializer: serializer).method == "DELETE")
            #expect(try await client.head("echo", serializer: DataResponseSerializer()).isEmpty)
            #expect(server.requests.map(\.method) == ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"])
        }
    }

    @Test func requestReturnsValueResponseBodyAndMetrics() async throws {
        try await withClient { _, client in
            let result = try await client.request(.get, "bytes/5000")
            #expect(result.statusCode == 200)
            #expect(result.value.count == 5000)
            #expect(result.data == result.value)
            #expect(result.metrics.bytesReceived == 5000)
            #expect(result.request.url?.path == "/bytes/5000")
            let decoded = try await client.request(.get, "json", as: Document.self)
            #expect(decoded.value.name == "loopback")
            #expect(decoded.value(forHTTPHeaderField: "content-type")?.hasPrefix("application/json") == true)
        }
    }

    // MARK: Handles: a progress loop for every verb

    @Test(arguments: [HTTPMethod.get, .head, .post, .put, .patch, .delete])
    func dataTaskGivesAProgressLoopForEveryVerb(method: HTTPMethod) async throws {
        try await withClient { server, client in
            let sendsBody = !HTTPMethod.encodingParametersInURL.contains(method)
            let parameters: Parameters = sendsBody ? ["blob": .string(String(repeating: "x", count: 200_000))] : ["small": 1]
            let handle = try await client.dataTask(method, "echo", parameters: parameters)
            var sawResponse = false
            var lastUpload: TransferProgress?
            var lastDownload: TransferProgress?
            var body = Data()
            var completed = false
            for try await event in handle.events {
                switch event {
                case .response(let response): sawResponse = response.statusCode == 200
                case .uploadProgress(let progress): lastUpload = progress
                case .downloadProgress(let progress): lastDownload = progress
                case .data(let chunk): body.append(chunk)
                case .completed: completed = true
                case .downloaded: Issue.record("a data task never downloads")
                case .trailers: Issue.record("this response has no trailers")
                }
            }
            #expect(sawResponse && completed)
            #expect(server.requests.last?.method == method.rawValue)
            if sendsBody {
                #expect(lastUpload?.completedBytes == 200_005, "\"blob=\" plus 200,000 bytes")
                #expect(lastUpload?.fractionCompleted == 1)
            } else {
                #expect(lastUpload == nil)
            }
            if method == .head {
                #expect(body.isEmpty)
            } else {
                #expect(lastDownload?.completedBytes == Int64(body.count))
                let echo = try JSONDecoder().decode(Echo.self, from: body)
                #expect(echo.method == method.rawValue)
            }
        }
    }

    // MARK: Base URL

    /// AFNetworking's base-URL behaviour, as a table: (base, reference, expected).
    static let baseURLTable: [(String?, String, String)] = [
        ("http://h.test/v1", "users", "http://h.test/v1/users"),                 // terminal slash added
        ("http://h.test/v1/", "users", "http://h.test/v1/users"),                // already there
        ("http://h.test/v1", "users/42?full=1", "http://h.test/v1/users/42?full=1"),
        ("http://h.test/v1", "/root", "http://h.test/root"),                     // absolute path
        ("http://h.test/v1", "../v2/users", "http://h.test/v2/users"),           // `..` per RFC 3986
        ("http://h.test/v1/deep/", "../../x", "http://h.test/x"),
        ("http://h.test/v1", "./a/../b", "http://h.test/v1/b"),
        ("http://h.test/v1", "", "http://h.test/v1/"),                           // the base itself
        ("http://h.test/v1", "http://other.test/x", "http://other.test/x"),      // absolute URL passes through
        ("http://h.test", "users", "http://h.test/users"),                       // no path: unchanged
        ("http://h.test/", "users", "http://h.test/users"),
        ("http://h.test/v1", "a b/é", "http://h.test/v1/a%20b/%C3%A9"),          // invalid characters encoded
        (nil, "http://h.test/abs", "http://h.test/abs"),
    ]

    @Test func baseURLResolutionTable() throws {
        for (base, reference, expected) in Self.baseURLTable {
            let client = HTTPClient(manager: SessionManager(), baseURL: base.map { URL(string: $0)! })
            let resolved = try client.resolve(reference)
            #expect(resolved.absoluteString == expected, "\(base ?? "nil") + \(reference)")
        }
    }

    @Test func baseURLAppliesToURLValuesAndComponents() throws {
        let client = HTTPClient(manager: SessionManager(), baseURL: URL(string: "http://h.test/api"))
        #expect(client.baseURL?.absoluteString == "http://h.test/api/")
        #expect(try client.resolve(URL(string: "items")!).absoluteString == "http://h.test/api/items")
        #expect(try client.resolve(URL(string: "https://x.test/y")!).absoluteString == "https://x.test/y")
        var components = URLComponents()
        components.path = "search"
        components.queryItems = [URLQueryItem(name: "q", value: "a")]
        #expect(try client.resolve(components).absoluteString == "http://h.test/api/search?q=a")
    }

    @Test func baseURLWithAPathResolvesAgainstTheServer() async throws {
        try await withServerAndManager { server, manager in
            // Without AFNetworking's terminal slash, "3" against /bytes would be /3.
            let client = HTTPClient(manager: manager, baseURL: server.url("/bytes"))
            #expect(try await client.request(.get, "3").value.count == 3)
            _ = try await client.get("../json", as: Document.self)
            _ = try await client.get("/echo", as: Echo.self)
            _ = try await client.request(.get, server.url("/bytes/4"))
            #expect(server.requests.map(\.path) == ["/bytes/3", "/json", "/echo", "/bytes/4"])
        }
    }

    @Test func badURLsFailBeforeAnythingIsSent() async throws {
        try await withServerAndManager { server, manager in
            let noBase = HTTPClient(manager: manager)
            let relative = await expectNetworkingError { try await noBase.get("echo", as: Echo.self) }
            #expect(relative?.kind == .invalidURL)
            let scheme = await expectNetworkingError { try await noBase.request(.get, "ftp://127.0.0.1/file") }
            #expect(scheme?.kind == .unsupportedScheme("ftp"))
            let handle = await expectNetworkingError { try await noBase.dataTask(.get, "mailto:someone") }
            #expect(handle?.kind == .unsupportedScheme("mailto"))
            #expect(server.stats.requestCount == 0)
        }
    }

    // MARK: Settings

    @Test func defaultHeadersAreSentAndCallHeadersWin() async throws {
        try await withClient { _, client in
            let echo: Echo = try await client.get("echo", headers: ["X-Trace": "t1", "accept-language": "de"])
            #expect(echo.headers["user-agent"] == DefaultHeaders.userAgent())
            #expect(echo.headers["accept-language"] == "de", "a call's header overrides the default, case-insensitively")
            #expect(echo.headers["x-trace"] == "t1")
            var bare = client
            bare.defaultHeaders = [:]
            let plain: Echo = try await bare.get("echo")
            #expect(plain.headers["user-agent"] != DefaultHeaders.userAgent(), "URLSession's own User-Agent")
        }
    }

    @Test func timeoutIntervalAppliesPerRequest() async throws {
        try await withClient { _, client in
            var quick = client
            quick.timeoutInterval = 0.2
            #if canImport(FoundationNetworking)
            #expect(quick.makeRequestTimeout == 1, "Linux truncates to whole seconds: rounded up, not disabled")
            #else
            #expect(quick.makeRequestTimeout == 0.2)
            #endif
            #expect(client.makeRequestTimeout == 60, "copies do not share settings")
            // The reply comes after 30 s, within the client's 60 s: only the 1 s timeout of this
            // request can make it time out.
            let error = await expectNetworkingError { try await quick.request(.get, "delay/30000") }
            #expect(error?.kind == .transport(.timedOut))
        }
    }

    @Test func cachePolicyIsSetOnEachRequest() throws {
        var client = HTTPClient(manager: SessionManager(), baseURL: URL(string: "http://h.test"))
        #expect(try client.makeRequest(.get, "x").cachePolicy == .useProtocolCachePolicy)
        client.cachePolicy = .reloadIgnoringLocalCacheData
        #expect(try client.makeRequest(.get, "x").cachePolicy == .reloadIgnoringLocalCacheData)
    }

    @Test func cancellingTheCallerCancelsTheRequest() async throws {
        try await withClient { server, client in
            let task = Task { try await client.request(.get, "delay/\(neverEnding)") }
            #expect(await eventually { server.stats.inFlight == 1 })
            task.cancel()
            let error = await expectNetworkingError { try await task.value }
            #expect(error?.kind == .cancelled)
            #expect(await eventually { await client.manager.activeTransferCount == 0 })
        }
    }
}

extension HTTPClient {
    /// The timeout a request built now would carry.
    var makeRequestTimeout: TimeInterval { (try? makeRequest(.get, "http://h.test/").timeoutInterval) ?? -1 }
}
