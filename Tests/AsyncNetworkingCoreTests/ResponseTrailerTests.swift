@testable import AsyncNetworkingTestSupport

/// Chunked responses with trailer fields. FoundationNetworking traps the whole
/// process on them (see LinuxBehaviour, "Trailers"), before any callback the URLSession transport
/// could act on, so these run on curl only: the process survives and the body is the result.
@Suite(
    "Response trailers",
    .enabled(if: defaultTransportIsCurl, "FoundationNetworking traps the process on trailers; see LinuxBehaviour")
)
struct ResponseTrailerTests {
    @Test("trailer fields are read, never taken for header fields; the body is the result", arguments: [
        ("200 OK", "X-T: 1\r\n"),
        ("200 OK", "X-T: 1\r\nX-U: 2\r\n"),
        ("200 OK", "X-T: 1\n"),
        ("404 Not Found", "X-T: 1\r\n"),
        ("200 OK", "Grpc-Status: 0\r\nGrpc-Message: ok\r\n"),
    ])
    func trailersIgnored(status: String, trailers: String) async throws {
        try await withServerAndManager { server, manager in
            #expect(manager.transport == .curl)
            let url = rawResponseURL(
                server,
                "HTTP/1.1 \(status)\r\nTrailer: X-T\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n3\r\n!!!\r\n0\r\n" + trailers + "\r\n"
            )
            let handle = try await manager.dataTask(with: URLRequest(url: url))
            var body = Data()
            var response: HTTPURLResponse?
            for try await event in handle.events {
                if case .response(let r) = event { response = r }
                if case .data(let d) = event { body.append(d) }
            }
            #expect(body == Data("ok!!!".utf8))
            #expect(response?.statusCode == Int(status.prefix(3)))
            #expect(response?.value(forHTTPHeaderField: "X-T") == nil, "trailers are not header fields")
            #expect(await manager.activeTransferCount == 0)
        }
    }
}
