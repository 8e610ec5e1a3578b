@testable import AsyncNetworkingTestSupport
@testable import CurlTransport
@testable import AsyncNetworkingCore

/// Request trailers: fields sent after a streamed body's last chunk, read back
/// from the raw bytes a socket server recorded; hostile or forbidden fields are refused with a
/// typed error before anything is sent.
@Suite("Request trailers", .enabled(if: defaultTransportIsCurl, "only curl sends request trailers; URLSession refuses them (see the last suite)"))
struct RequestTrailerTests {
    static func chunks(_ sizes: [Int]) -> AsyncStream<Data> {
        AsyncStream { continuation in
            for (index, size) in sizes.enumerated() { continuation.yield(Data(repeating: UInt8(index + 1), count: size)) }
            continuation.finish()
        }
    }

    static func tail(of request: DuplexTestServer.Recorded, _ count: Int) -> String {
        String(decoding: request.raw.suffix(count), as: UTF8.self)
    }

    @Test("fixed fields follow the last chunk, and the head announces them in Trailer")
    func fixedFields() async throws {
        try await DuplexTestServer.withManager { server, manager in
            let (body, response) = try await withDeadline {
                try await manager.upload(
                    for: server.post("/record"), from: Self.chunks([1_000, 70_000]),
                    trailers: .fields(["X-Checksum": "sha256=abc", "X-Count": "2"])
                )
            }
            #expect(response.statusCode == 200)
            #expect(String(decoding: body, as: UTF8.self) == "got 71000")
            let recorded = try #require(server.requests.first)
            #expect(recorded.complete)
            #expect(recorded.trailerLines == ["X-Checksum: sha256=abc", "X-Count: 2"])
            let head = recorded.head.lowercased()
            #expect(head.contains("\r\ntransfer-encoding: chunked"))
            #expect(head.contains("\r\ntrailer: x-checksum, x-count"))
            let end = "\r\n0\r\nX-Checksum: sha256=abc\r\nX-Count: 2\r\n\r\n"
            #expect(Self.tail(of: recorded, end.utf8.count) == end, "the raw end of the body: last chunk, trailer section")
        }
    }

    @Test("computed fields are made after the sequence ended, from what it produced")
    func computedFields() async throws {
        try await DuplexTestServer.withManager { server, manager in
            let sent = SanitizedMutex((bytes: 0, checksum: UInt64(0)))
            let body = AsyncStream<Data> { continuation in
                for index in 0..<5 {
                    let chunk = Data(repeating: UInt8(index), count: 10_000 * (index + 1))
                    sent.withLock { $0.bytes += chunk.count; $0.checksum = $0.checksum &* 31 &+ UInt64(chunk.count) }
                    continuation.yield(chunk)
                }
                continuation.finish()
            }
            let calls = SanitizedMutex(0)
            _ = try await withDeadline {
                try await manager.upload(for: server.post("/record"), from: body, trailers: .computed {
                    calls.withLock { $0 += 1 }
                    let (bytes, checksum) = sent.withLock { ($0.bytes, $0.checksum) }
                    return ["X-Bytes": "\(bytes)", "X-Sum": String(checksum, radix: 16)]
                })
            }
            let recorded = try #require(server.requests.first)
            let expected = sent.withLock { $0 }
            #expect(expected.bytes == 150_000)
            #expect(recorded.payload == 150_000)
            #expect(recorded.trailerLines == ["X-Bytes: 150000", "X-Sum: \(String(expected.checksum, radix: 16))"])
            #expect(calls.withLock { $0 } == 1)
            #expect(recorded.head.lowercased().contains("\r\ntrailer:") == false, "computed names are not known ahead")
        }
    }

    @Test("trailers go out after a duplex body too, while the response was read")
    func trailersAfterADuplexBody() async throws {
        try await DuplexTestServer.withManager { server, manager in
            try await withDeadline {
                let (producer, echo, _) = try await manager.openDuplex(server.post("/echo"), trailers: .fields(["Grpc-Status": "0"]))
                var body = echo.makeAsyncIterator()
                producer.yield(Data("ping".utf8))
                #expect(try await DuplexTests.read(4, from: &body) == Data("ping".utf8))
                producer.finish()
                #expect(try await body.next() == nil)
            }
            #expect(server.requests.first?.trailerLines == ["Grpc-Status: 0"])
        }
    }

    @Test("a re-sent factory body sends its trailers again")
    func trailersOnEveryAttempt() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/redirect-to?url=/upload&status=307"))
            request.httpMethod = "POST"
            let calls = SanitizedMutex(0)
            let (body, response) = try await manager.upload(
                for: request, fromSequence: { TransfersUploadTests.chunks(count: 100_000) },
                trailers: .computed { calls.withLock { $0 += 1 }; return ["X-Attempt": "any"] }
            )
            #expect(response.statusCode == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            #expect(json["bytes"] as? Int == 100_000)
            #expect(calls.withLock { $0 } == 2, "one call per attempt")
        }
    }

    @Test("hostile or forbidden fields are refused before anything is sent", arguments: [
        ("X-Ok", "a\r\nInjected: yes"), ("X-Ok", "line\nfeed"), ("X-Ok", "nul\u{0}"), ("X-Ok", "tab\u{0B}vt"), ("X-Ok", "del\u{7F}"),
        ("Bad Name", "v"),
        ("Bad:Name", "v"), ("", "v"), ("X-Evil\r\nHost", "v"), ("Content-Length", "5"),
        ("transfer-encoding", "chunked"), ("Host", "elsewhere"), ("Authorization", "Bearer t"),
        ("Cookie", "a=b"), ("Trailer", "X"), ("Expect", "100-continue"), ("Content-Type", "text/plain"),
    ])
    func refusedBeforeSending(name: String, value: String) async throws {
        try await DuplexTestServer.withManager { server, manager in
            let produced = SanitizedMutex(0)
            let error = await expectNetworkingError {
                try await manager.upload(
                    for: server.post("/record"), from: EndlessChunks(produced: produced),
                    trailers: .fields(HTTPHeaders([HTTPHeader(name: name, value: value)]))
                )
            }
            #expect(error?.kind == .invalidTrailerField)
            #expect(error.map { !$0.message.contains(value) || value.count < 2 } == true, "the value is never printed")
            #expect(produced.withLock { $0 } == 0, "the sequence was not iterated")
            try await Task.sleep(for: .milliseconds(50))
            #expect(server.requests.isEmpty, "nothing was sent")
        }
    }

    @Test("a computed field that is refused fails the transfer before the body's last chunk")
    func computedRefusal() async throws {
        try await DuplexTestServer.withManager { server, manager in
            let error = await expectNetworkingError {
                try await withDeadline {
                    try await manager.upload(
                        for: server.post("/record"), from: Self.chunks([5_000]),
                        trailers: .computed { ["Content-Length": "0"] }
                    )
                }
            }
            #expect(error?.kind == .invalidTrailerField)
            #expect(await eventually { server.closedConnections == 1 })
            let recorded = try #require(server.requests.first)
            #expect(recorded.payload == 5_000)
            #expect(!recorded.complete, "the server never saw a complete request")
            #expect(!String(decoding: recorded.raw, as: UTF8.self).contains("Content-Length: 0"))
        }
    }

    @Test("a trailer closure that throws fails the transfer with its error")
    func computedThrows() async throws {
        struct Boom: Error {}
        try await DuplexTestServer.withManager { server, manager in
            let error = await expectNetworkingError {
                try await withDeadline {
                    try await manager.upload(
                        for: server.post("/record"), from: Self.chunks([5_000]), trailers: .computed { throw Boom() }
                    )
                }
            }
            #expect(error?.kind == .requestSerializationFailed)
            #expect(error?.underlyingError is Boom)
        }
    }

    @Test("a spooled body cannot carry trailers")
    func spooledRefuses() async throws {
        try await DuplexTestServer.withManager { server, manager in
            let error = await expectNetworkingError {
                try await manager.upload(
                    for: server.post("/record"), from: Self.chunks([10]), mode: .spooled,
                    trailers: .fields(["X-A": "1"])
                )
            }
            #expect(error?.kind == .unsupportedOperation)
            #expect(server.requests.isEmpty)
        }
    }
}

/// The rules, as a table, and the transport's refusals.
@Suite("Request trailer rules")
struct RequestTrailerRuleTests {
    @Test func theRules() {
        #expect(TrailerFieldRules.problem(name: "X-Checksum", value: "sha256=abc") == nil)
        #expect(TrailerFieldRules.problem(name: "Server-Timing", value: "db;dur=53") == nil)
        #expect(TrailerFieldRules.problem(name: "grpc-status", value: "0") == nil)
        for name in ["CONTENT-LENGTH", "Transfer-Encoding", "host", "Authorization", "Proxy-Authorization", "Set-Cookie", "TE", "Range"] {
            #expect(TrailerFieldRules.problem(name: name, value: "x") != nil, "\(name)")
        }
        #expect(TrailerFieldRules.problem(name: "X", value: "a\rb")?.contains("a\rb") == false)
    }

    @Test func urlSessionRefusesTrailersBeforeSending() async throws {
        try await DuplexTestServer.withManager(transport: .urlSession) { server, manager in
            let error = await expectNetworkingError {
                try await manager.upload(
                    for: server.post("/record"), from: RequestTrailerTests.chunks([10]), trailers: .fields(["X-A": "1"])
                )
            }
            #expect(error?.kind == .unsupportedOperation)
            #expect(server.requests.isEmpty)
        }
    }

    #if os(Linux)
    @Test("the curl request refuses trailers on HTTP/2 and on a body of known length")
    func curlRequestValidation() throws {
        let url = URL(string: "http://127.0.0.1:1/")!
        var request = CurlRequest(url: url, method: "POST", body: .producer(CurlBodyPipe(), length: nil))
        request.sendsTrailers = true
        request.options.httpVersion = .http1_1
        try request.validate()
        for version in [CurlHTTPVersion.automatic, .http2PriorKnowledge] {
            request.options.httpVersion = version
            #expect(throws: CurlRequestError.self) { try request.validate() }
        }
        request.options.httpVersion = .http1_1
        request.body = .data(Data("x".utf8))
        #expect(throws: CurlRequestError.self) { try request.validate() }
    }
    #endif
}

extension RequestTrailerTests {
    @Test("several uploads with trailers one after another on one manager")
    func sequentialUploadsWithTrailers() async throws {
        try await DuplexTestServer.withManager { server, manager in
            for index in 0..<4 {
                _ = try await withDeadline {
                    try await manager.upload(
                        for: server.post("/record"), from: Self.chunks([100 * (index + 1)]),
                        trailers: .fields(["X-Index": "\(index)"])
                    )
                }
                let plain = server.post("/record")
                _ = try await withDeadline { try await manager.upload(for: plain, from: Self.chunks([10])) }
            }
            let trailers = server.requests.map(\.trailerLines)
            #expect(trailers == [["X-Index: 0"], [], ["X-Index: 1"], [], ["X-Index: 2"], [], ["X-Index: 3"], []])
        }
    }
}
