@testable import AsyncNetworkingTestSupport

/// Rule: how many codings a response stacks is a number read from the wire, and it bounds what
/// the client allocates (a decoder and a window per coding). Up to 5 stacked codings decode, as
/// libcurl decodes; more fail with `.transport(.cannotDecodeContentData)` before any decoder is
/// made — 6 of them, or thousands in one `Content-Encoding` field. On both transports.
@Suite("Stacked content codings", .serialized)
struct ContentCodingStackTests {
    /// `ContentDecodingTests.text` gzip-ed `times` times.
    static func stacked(_ times: Int) -> Data? {
        var data = ContentDecodingTests.text
        for _ in 0..<times {
            guard let next = ContentEncoders.gzip(data) else { return nil }
            data = next
        }
        return data
    }

    @Test func fiveStackedCodingsDecode() async throws {
        let body = try #require(Self.stacked(5), "zlib is missing")
        try await ContentDecodingTests.withEncodedServer { server, manager in
            server.serve("five", contentEncoding: Array(repeating: "gzip", count: 5).joined(separator: ", "), body)
            let (data, _) = try await manager.data(from: server.url("five"))
            #expect(data == ContentDecodingTests.text)
        }
    }

    @Test(arguments: [6, 10_000])
    func moreStackedCodingsFail(count: Int) async throws {
        let body = try #require(Self.stacked(6), "zlib is missing")
        try await ContentDecodingTests.withEncodedServer { server, manager in
            server.serve("many", contentEncoding: Array(repeating: "gzip", count: count).joined(separator: ","), body)
            let error = await expectNetworkingError { try await manager.data(from: server.url("many")) }
            #expect(error?.kind == .transport(.cannotDecodeContentData), "\(String(describing: error))")
        }
    }
}
