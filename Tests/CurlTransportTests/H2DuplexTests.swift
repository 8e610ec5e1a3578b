#if os(Linux)
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// Full duplex over HTTP/2: the curl transport against an independent HTTP/2
/// server (the PyPI `h2` package, cleartext with prior knowledge), with the same chunk-by-chunk
/// echo as over HTTP/1.1 — a deadline catches a deadlock. At the transport's level; through the
/// manager (which runs a flow-controlled transfer over HTTP/2 only with
/// `HTTP2Options(pausableTransfers: .http2)`) see `H2ManagerDuplexTests`.
@Suite("Full duplex over HTTP/2", .enabled(if: H2DuplexPeer.isAvailable, "the PyPI h2 package is not installed (python3 -m pip install h2)"))
struct H2DuplexTests {
    static func start(_ loop: CurlMultiLoop, _ url: URL, _ pipe: CurlBodyPipe) throws -> CurlTransferID {
        var options = CurlTransferOptions()
        options.httpVersion = .http2PriorKnowledge
        let id = try loop.start(CurlRequest(url: url, method: "POST", body: .producer(pipe, length: nil), options: options))
        pipe.onReadable { loop.resumeSending(id) }
        return id
    }

    @Test("an echo over one HTTP/2 stream, chunk by chunk; the response trailers arrive too")
    func echo() async throws {
        let peer = try H2DuplexPeer.start()
        defer { peer.stop() }
        try await withCurlLoop { _, loop, recorder in
            let pipe = CurlBodyPipe()
            let id = try Self.start(loop, H2DuplexPeer.url(peer, "/echo"), pipe)
            var expected = Data()
            for index in 0..<20 {
                let chunk = Data("chunk \(index);".utf8)
                expected += chunk
                pipe.write(chunk)
                #expect(await curlEventually { recorder.record(id).body == expected }, "echo \(index)")
            }
            pipe.finish()
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            #expect(recorder.record(id).heads.first?.httpVersion == "HTTP/2")
            #expect(recorder.record(id).body == expected)
            let trailers = Dictionary(completion.trailers.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 })
            #expect(trailers["x-received"] == "\(expected.count)")
        }
    }

    @Test("a server that speaks first on an HTTP/2 stream")
    func speaksFirst() async throws {
        let peer = try H2DuplexPeer.start()
        defer { peer.stop() }
        try await withCurlLoop { _, loop, recorder in
            let pipe = CurlBodyPipe()
            let id = try Self.start(loop, H2DuplexPeer.url(peer, "/first"), pipe)
            #expect(await curlEventually { recorder.record(id).body == Data("hello".utf8) })
            #expect(recorder.record(id).sentTotal == 0, "nothing was sent before the server spoke")
            pipe.write(Data(repeating: 9, count: 100_000))
            pipe.finish()
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            #expect(String(decoding: recorder.record(id).body, as: UTF8.self) == "hellogot 100000")
        }
    }

    /// The rule of `CurlResponseEnd` on an HTTP/2 stream: a complete response (its
    /// `content-length` read) ends the transfer while the request body is still open (the stream
    /// is reset), for a `2xx` and a `4xx`. (A stream that ends without `content-length` is not
    /// reported by libcurl 7.88 while the body is open: the manager sends produced bodies over
    /// HTTP/1.1 there, see `DuplexCompleteResponseTests`.)
    @Test("a complete response ends the transfer while the request body is still open", arguments: [200, 404])
    func aCompleteResponseEndsTheTransfer(status: Int) async throws {
        let peer = try H2DuplexPeer.start()
        defer { peer.stop() }
        try await withCurlLoop { _, loop, recorder in
            let pipe = CurlBodyPipe()
            let id = try Self.start(loop, H2DuplexPeer.url(peer, "/complete-cl/\(status)"), pipe)
            pipe.write(Data(repeating: 7, count: 1_000)) // and never finished
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            #expect(recorder.record(id).heads.map(\.statusCode) == [status])
            #expect(String(decoding: recorder.record(id).body, as: UTF8.self) == "complete \(status)")
        }
    }

    @Test("request trailers are refused on HTTP/2 before anything is sent (libcurl 7.88 sends none there)")
    func requestTrailersRefused() async throws {
        let peer = try H2DuplexPeer.start()
        defer { peer.stop() }
        try await withCurlLoop { _, loop, _ in
            var options = CurlTransferOptions()
            options.httpVersion = .http2PriorKnowledge
            var request = CurlRequest(url: H2DuplexPeer.url(peer, "/echo"), method: "POST", body: .producer(CurlBodyPipe(), length: nil), options: options)
            request.sendsTrailers = true
            #expect(throws: CurlRequestError.self) { try loop.start(request) }
        }
    }
}
#endif
