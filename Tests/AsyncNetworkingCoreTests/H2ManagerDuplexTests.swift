#if os(Linux)
@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// Rule: with `HTTP2Options(pausableTransfers: .http2)` and a libcurl that can tell an HTTP/2
/// response's end while a produced body is open (`CurlLibrary.endsHTTP2ResponsesWhileSending`: not
/// libcurl 7.88, which sends such bodies over HTTP/1.1 — see `DuplexCompleteResponseTests`), a
/// streamed body and its streamed response run as one HTTP/2 stream through the manager, full duplex:
/// the same chunk-by-chunk echo as over HTTP/1.1 (`DuplexTests`), against the PyPI `h2` peer over
/// TLS offering only `h2` — a connection that fell back to HTTP/1.1 could not talk to it at all.
@Suite(
    "Full duplex over HTTP/2 through the manager",
    .enabled(if: H2DuplexPeer.isAvailable && TestPKI.isAvailable, "needs the PyPI h2 package and openssl"),
    .enabled(if: CurlLibrary.endsHTTP2ResponsesWhileSending, "libcurl 7.88 sends produced bodies over HTTP/1.1")
)
struct H2ManagerDuplexTests {
    @Test("an echo over HTTP/2 through stream(for:from:), chunk by chunk, with the response trailers")
    func echoThroughTheManager() async throws {
        let pki = try await TestPKI.make()
        let peer = try H2DuplexPeer.start(certificate: pki.file("good-chain.pem"), key: pki.file("good.key"))
        defer { peer.stop() }
        let manager = SessionManager(
            transport: .curl, securityPolicy: .customRoots([try pki.certificate("ca.pem")]),
            http2: HTTP2Options(pausableTransfers: .http2)
        )
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        let request = DuplexTests.post(URL(string: "https://127.0.0.1:\(peer.port)/echo")!)
        try await withDeadline {
            var total = 0
            let (echo, response) = try await manager.stream(for: request, from: chunks)
            #expect(response.statusCode == 200)
            var body = echo.makeAsyncIterator()
            for index in 0..<20 {
                let chunk = Data("chunk \(index) ".utf8) + Data(repeating: UInt8(index), count: index * 100)
                total += chunk.count
                producer.yield(chunk)
                #expect(try await DuplexTests.read(chunk.count, from: &body) == chunk, "echo \(index)")
            }
            producer.finish()
            #expect(try await body.next() == nil, "the stream ends after the request's last chunk")
            #expect(echo.trailers["x-received"] == "\(total)")
        }
        await manager.invalidateAndCancel()
    }
}
#endif
