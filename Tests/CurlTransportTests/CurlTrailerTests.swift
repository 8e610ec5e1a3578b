@testable import CurlTransport
@testable import AsyncNetworkingTestSupport

/// Response trailers (RFC 9110 §6.5): the field lines libcurl hands to the header callback after a
/// chunked body. The rule: after a completed final head, a valid field line is a trailer (kept in
/// order, duplicates kept); a line that breaks the field rules is dropped, never fatal; a new request
/// starts over; trailers reach the seam only for a transfer that succeeded.
@Suite("Curl response trailers")
struct CurlTrailerTests {
    private func feed(_ lines: [String]) -> CurlHeadParser {
        var parser = CurlHeadParser()
        for line in lines { _ = parser.consume(line + "\r\n") }
        return parser
    }

    @Test("field lines after the final head are trailers; bad ones are dropped, not fatal")
    func parserCollectsTrailers() {
        let parser = feed([
            "HTTP/1.1 200 OK", "Transfer-Encoding: chunked", "",
            "X-Checksum: abc", "Bad Name: 1", "X-Ctl: a\u{0B}b", " folded", "Server-Timing: db;dur=53",
            "X-Checksum: def", "",
        ])
        #expect(parser.failure == nil)
        #expect(parser.trailers.map(\.name) == ["X-Checksum", "Server-Timing", "X-Checksum"])
        #expect(parser.trailers.map(\.value) == ["abc", "db;dur=53", "def"])
    }

    @Test("a new request's status line forgets the trailers of the head before it")
    func newHeadResetsTrailers() {
        var parser = feed(["HTTP/1.1 200 OK", "", "X-T: 1"])
        parser.beginRequest()
        _ = parser.consume("HTTP/1.1 204 No Content\r\n")
        _ = parser.consume("\r\n")
        #expect(parser.trailers.isEmpty)
    }

    @Test("trailers after a real chunked body arrive with the completion, in order")
    func trailersFromARealChunkedBody() async throws {
        try await withCurlLoop(deadline: 30) { server, loop, recorder in
            let raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\nConnection: close\r\n\r\n"
                + "5\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: sha256=abc\r\nServer-Timing: db;dur=53\r\n\r\n"
            let id = try loop.get(rawResponseURL(server, raw))
            let completion = await recorder.completion(of: id)
            #expect(completion.succeeded, "\(completion.code) \(completion.message)")
            #expect(recorder.record(id).bodyCount == 11)
            #expect(completion.trailers.map(\.name) == ["X-Checksum", "Server-Timing"])
            #expect(completion.trailers.map(\.value) == ["sha256=abc", "db;dur=53"])
        }
    }

    @Test("a body without trailers completes with none, and a failed body carries none")
    func noTrailers() async throws {
        try await withCurlLoop(deadline: 30) { server, loop, recorder in
            let plain = try loop.get(rawResponseURL(server, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nok\r\n0\r\n\r\n"))
            let plainDone = await recorder.completion(of: plain)
            #expect(plainDone.succeeded)
            #expect(plainDone.trailers.isEmpty)
            // Truncated: the last chunk never comes, so the transfer fails and carries no trailers.
            let cut = try loop.get(rawResponseURL(server, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nok\r\n"))
            let cutDone = await recorder.completion(of: cut)
            #expect(!cutDone.succeeded)
            #expect(cutDone.trailers.isEmpty)
        }
    }
}

/// Trailers through the public API: ``TransferMetrics/trailers`` on the completion, and
/// ``HTTPResponse/trailers`` on an ``HTTPClient`` result. Curl only: FoundationNetworking traps the
/// process on a response with trailers (see ResponseTrailerTests and LinuxBehaviour).
@Suite(
    "Response trailers delivered through the public API",
    .enabled(if: defaultTransportIsCurl, "FoundationNetworking traps the process on trailers; see LinuxBehaviour")
)
struct TrailerDeliveryTests {
    private static let chunkedWithTrailers = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n"
        + "Trailer: X-Checksum\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\nX-Checksum: abc\r\nx-checksum: def\r\n"
        + "Server-Timing: db;dur=53\r\n\r\n"

    @Test("the completion of an event stream carries the trailers, repeated names joined")
    func eventStreamCompletionCarriesTrailers() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: rawResponseURL(server, Self.chunkedWithTrailers)))
            var body = Data()
            var metrics: TransferMetrics?
            for try await event in handle.events {
                if case .data(let chunk) = event { body.append(chunk) }
                if case .completed(let done) = event { metrics = done }
            }
            #expect(body == Data("hello".utf8))
            let trailers = try #require(metrics).trailers
            #expect(trailers["X-Checksum"] == "abc, def")
            #expect(trailers["server-timing"] == "db;dur=53")
            #expect(trailers.count == 2)
        }
    }

    @Test("an HTTPClient result has the trailers; a response without any has none")
    func clientResultHasTrailers() async throws {
        try await withServerAndManager { server, manager in
            let client = HTTPClient(manager: manager)
            let withTrailers = try await client.send(.get(rawResponseURL(server, Self.chunkedWithTrailers).absoluteString, as: String.self))
            #expect(withTrailers.value == "hello")
            #expect(withTrailers.trailers["X-Checksum"] == "abc, def")
            let plain = try await client.send(.get(server.url("/bytes/10").absoluteString, as: Data.self))
            #expect(plain.trailers.isEmpty)
        }
    }
}
