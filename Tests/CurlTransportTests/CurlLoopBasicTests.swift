#if os(Linux)
@testable import TransportSeam
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

@Suite("Curl loop: requests")
struct CurlLoopBasicTests {
    @Test("libcurl loads and reports its version")
    func loads() throws {
        try CurlLibrary.load()
        let version = try #require(CurlLibrary.version)
        #expect(version.hasPrefix("libcurl/"))
    }

    @Test("a GET delivers the exact body, the head, ordered events and metrics")
    func get() async throws {
        try await withCurlLoop { server, loop, recorder in
            let id = try loop.get(server.url("/bytes/300000?seed=7"))
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            let record = recorder.record(id)
            #expect(record.body == SeededBytes.data(seed: 7, offset: 0, count: 300_000))
            #expect(record.order == ["response", "data", "completed"])
            let head = try #require(record.heads.first)
            #expect(head.statusCode == 200)
            #expect(head.httpVersion == "HTTP/1.1")
            #expect(head.value(of: "Content-Length") == "300000")
            #expect(head.value(of: "ETag") == "\"b-300000-7\"")
            let response = try #require(head.makeHTTPURLResponse(url: server.url("/bytes/300000?seed=7")))
            #expect(response.expectedContentLength == 300_000)
            let metrics = completion.metrics
            #expect(metrics.httpVersion == "HTTP/1.1")
            #expect(metrics.bytesReceived == 300_000)
            #expect(metrics.newConnections == 1)
            #expect(metrics.remoteAddress == "127.0.0.1")
            #expect(metrics.remotePort == Int(server.port))
            #expect(metrics.effectiveURL == server.url("/bytes/300000?seed=7").absoluteString)
            #expect(metrics.total >= metrics.startTransfer && metrics.startTransfer >= metrics.connect)
        }
    }

    @Test("duplicate response headers and Set-Cookie arrive as sent")
    func responseHeaders() async throws {
        try await withCurlLoop { server, loop, recorder in
            let id = try loop.get(server.url("/response-headers?X-Dup=1&X-Dup=2&Set-Cookie=a%3D1&Set-Cookie=b%3D2"))
            #expect(await recorder.completion(of: id).succeeded)
            let head = try #require(recorder.record(id).heads.first)
            #expect(head.values(of: "x-dup") == ["1", "2"])
            #expect(head.headerFields["X-Dup"] == "1, 2")
            #expect(head.setCookies == ["a=1", "b=2"])
            #expect(recorder.record(id).body == Data("ok".utf8))
        }
    }

    @Test("a 100 Continue is skipped; HEAD gets a head and no body")
    func interimAndHead() async throws {
        try await withCurlLoop { server, loop, recorder in
            let continued = try loop.get(server.url("/continue"))
            let head = try loop.start(CurlRequest(url: server.url("/bytes/5000"), method: "HEAD"))
            #expect(await recorder.completion(of: continued).succeeded)
            #expect(await recorder.completion(of: head).succeeded)
            #expect(recorder.record(continued).heads.map(\.statusCode) == [200])
            #expect(recorder.record(continued).body == Data("after continue".utf8))
            #expect(recorder.record(head).heads.first?.value(of: "Content-Length") == "5000")
            #expect(recorder.record(head).bodyCount == 0)
            #expect(server.requests.last { $0.path == "/bytes/5000" }?.method == "HEAD")
        }
    }

    @Test("headers: an empty value is sent empty, no Expect, a custom Accept replaces curl's; methods pass through")
    func requestHeaders() async throws {
        try await withCurlLoop { server, loop, recorder in
            let request = CurlRequest(
                url: server.url("/echo"), method: "DELETE",
                headers: [(name: "X-Empty", value: ""), (name: "Accept", value: "application/json"), (name: "X-A", value: "1")]
            )
            let id = try loop.start(request)
            #expect(await recorder.completion(of: id).succeeded)
            let echo = curlJSON(recorder.record(id).body)
            let headers = echo["headers"] as? [String: String] ?? [:]
            #expect(echo["method"] as? String == "DELETE")
            #expect(headers["x-empty"] == "")
            #expect(headers["accept"] == "application/json")
            #expect(headers["x-a"] == "1")
            #expect(headers["expect"] == nil)
        }
    }

    @Test("Accept-Encoding decoding is on by default and can be turned off")
    func decoding() async throws {
        try await withCurlLoop { server, loop, recorder in
            let decoded = try loop.get(server.url("/gzip/100000"))
            var raw = CurlTransferOptions()
            raw.decodesContent = false
            let encoded = try loop.get(server.url("/gzip/100000"), options: raw)
            #expect(await recorder.completion(of: decoded).succeeded)
            #expect(await recorder.completion(of: encoded).succeeded)
            #expect(recorder.record(decoded).body == Data(count: 100_000))
            let compressed = recorder.record(encoded).body
            #expect(compressed.count < 100_000)
            #expect(compressed.prefix(2) == Data([0x1F, 0x8B]))
        }
    }

    @Test("redirects are not followed: the 3xx head and body are delivered as is")
    func redirectNotFollowed() async throws {
        try await withCurlLoop { server, loop, recorder in
            let id = try loop.get(server.url("/redirect/2?status=307"))
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded)
            let head = try #require(recorder.record(id).heads.first)
            #expect(head.statusCode == 307)
            #expect(head.value(of: "Location") == "/redirect/1?status=307")
            #expect(recorder.record(id).heads.count == 1)
            #expect(completion.metrics.redirectCount == 0)
            #expect(server.stats.requestCount == 1)
        }
    }

    @Test("200 concurrent GETs all complete with their exact bodies")
    func concurrent() async throws {
        try await withCurlLoop { server, loop, recorder in
            let ids = try (0..<200).map { index in try loop.get(server.url("/bytes/\(1000 + index)?seed=\(index)")) }
            for (index, id) in ids.enumerated() {
                let completion = await recorder.completion(of: id)
                #expect(completion.succeeded, "\(index): \(completion.code) \(completion.message)")
                #expect(recorder.record(id).body == SeededBytes.data(seed: UInt64(index), offset: 0, count: 1000 + index))
            }
            // The per-host limit (6) held, and batches joined events of several transfers.
            #expect(server.stats.connectionCount <= 6)
            #expect(recorder.batches < 200 * 3)
        }
    }

    @Test("1,000 sequential GETs reuse a few keep-alive connections")
    func keepAlive() async throws {
        try await withCurlLoop(deadline: 120) { server, loop, recorder in
            var newConnections = 0
            for index in 0..<1000 {
                let id = try loop.get(server.url("/bytes/10"))
                let completion = await recorder.completion(of: id)
                #expect(completion.succeeded, "\(index): \(completion.code) \(completion.message)")
                newConnections += completion.metrics.newConnections
            }
            #expect(server.stats.requestCount == 1000)
            #expect(server.stats.connectionCount <= 2)
            #expect(newConnections == server.stats.connectionCount)
            #expect(loop.stats.liveEasyHandles <= 2)
        }
    }

    @Test("a request that cannot be sent throws before anything starts, and so does a start after shutdown")
    func invalid() async throws {
        let loop = try CurlMultiLoop(handler: { _ in })
        #expect(throws: CurlRequestError.self) { try loop.get(URL(string: "ftp://127.0.0.1/x")!) }
        #expect(throws: CurlRequestError.self) {
            try loop.start(CurlRequest(url: URL(string: "http://127.0.0.1/")!, headers: [(name: "X", value: "a\r\nB: c")]))
        }
        #expect(throws: CurlRequestError.self) {
            try loop.start(CurlRequest(url: URL(string: "http://127.0.0.1/")!, method: "GET /x"))
        }
        await loop.shutdown()
        #expect(throws: CurlRequestError.self) { try loop.get(URL(string: "http://127.0.0.1/")!) }
        #expect(loop.stats.activeTransfers == 0)
        #expect(!loop.stats.isRunning)
    }
}
#endif
