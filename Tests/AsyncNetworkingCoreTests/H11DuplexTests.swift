@testable import AsyncNetworkingTestSupport

/// Full duplex and trailers through the public API against an independent HTTP/1.1 peer (the PyPI
/// `h11` package): what goes on the wire — chunked bodies both ways, trailer sections — is parsed
/// by code this project did not write.
@Suite(
    "Full duplex and trailers against an h11 server",
    .enabled(if: defaultTransportIsCurl && H11DuplexPeer.isAvailable, "curl only, and needs the PyPI h11 package (python3 -m pip install h11)")
)
struct H11DuplexTests {
    @Test("echo chunk by chunk, with request trailers h11 parses and response trailers it sends")
    func echoWithTrailers() async throws {
        let peer = try H11DuplexPeer.start()
        defer { peer.stop() }
        let manager = SessionManager()
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        let request = DuplexTests.post(H11DuplexPeer.url(peer, "/echo"))
        try await withDeadline {
            let (echo, response) = try await manager.stream(
                for: request, from: chunks, trailers: .fields(["X-Checksum": "sha256=abc", "X-Note": "a b"])
            )
            #expect(response.statusCode == 200)
            var body = echo.makeAsyncIterator()
            var total = 0
            for index in 0..<10 {
                let chunk = Data("message \(index);".utf8)
                total += chunk.count
                producer.yield(chunk)
                #expect(try await DuplexTests.read(chunk.count, from: &body) == chunk, "echo \(index)")
            }
            producer.finish()
            #expect(try await body.next() == nil)
            #expect(echo.trailers["x-received"] == "\(total)")
            #expect(echo.trailers["x-request-trailers"] == "x-checksum=sha256=abc;x-note=a b")
        }
        await manager.invalidateAndCancel()
    }

    @Test("a server that speaks first; computed request trailers")
    func speaksFirst() async throws {
        let peer = try H11DuplexPeer.start()
        defer { peer.stop() }
        let manager = SessionManager()
        let (chunks, producer) = AsyncStream<Data>.makeStream()
        let request = DuplexTests.post(H11DuplexPeer.url(peer, "/first"))
        try await withDeadline {
            let (answer, _) = try await manager.stream(for: request, from: chunks, trailers: .computed { ["X-Done": "yes"] })
            var body = answer.makeAsyncIterator()
            #expect(try await DuplexTests.read(5, from: &body) == Data("hello".utf8))
            producer.yield(Data(repeating: 1, count: 200_000))
            producer.finish()
            var rest = Data()
            while let chunk = try await body.next() { rest.append(chunk) }
            #expect(String(decoding: rest, as: UTF8.self) == "got 200000")
            #expect(answer.trailers["x-request-trailers"] == "x-done=yes")
        }
        await manager.invalidateAndCancel()
    }
}
