@testable import AsyncNetworkingTestSupport

/// Response trailers as an event: ``TransferEvent/trailers(_:)`` after the last
/// chunk and before the completion, and ``ResponseBody/trailers`` once a streamed body has ended.
@Suite(
    "Response trailers as an event",
    .enabled(if: defaultTransportIsCurl, "FoundationNetworking traps the process on trailers; see LinuxBehaviour")
)
struct ResponseTrailerEventTests {
    static let chunkedWithTrailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Checksum\r\n"
        + "Connection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\nX-Checksum: abc\r\nx-checksum: def\r\n"
        + "Server-Timing: db;dur=53\r\n\r\n"

    @Test("the trailers event comes after the last data and right before the completion")
    func eventOrder() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: rawResponseURL(server, Self.chunkedWithTrailers)))
            var names: [String] = []
            var trailers: HTTPHeaders?
            var metrics: TransferMetrics?
            for try await event in handle.events {
                if case .uploadProgress = event { continue }
                if case .downloadProgress = event { continue }
                if names.last != "data" || event.name != "data" { names.append(event.name) }
                if case .trailers(let fields) = event { trailers = fields }
                if case .completed(let done) = event { metrics = done }
            }
            #expect(names == ["response", "data", "trailers", "completed"])
            #expect(trailers?["X-Checksum"] == "abc, def")
            #expect(trailers?["server-timing"] == "db;dur=53")
            #expect(trailers == metrics?.trailers)
        }
    }

    @Test("a streamed body has its trailers once read to the end")
    func responseBodyTrailers() async throws {
        try await withServerAndManager { server, manager in
            let (body, response) = try await manager.stream(for: URLRequest(url: rawResponseURL(server, Self.chunkedWithTrailers)))
            #expect(response.statusCode == 200)
            #expect(body.trailers.isEmpty)
            #expect(try await body.collect() == Data("hello world".utf8))
            #expect(body.trailers["x-checksum"] == "abc, def")
            #expect(body.trailers.count == 2)
        }
    }
}

/// On every transport: a response without trailers has no trailers event and no trailers on its
/// results (on URLSession, the only kind of response the process survives: see LinuxBehaviour).
@Suite("No trailers, no trailers event")
struct NoTrailerEventTests {
    @Test func aPlainChunkedResponseHasNone() async throws {
        try await withServerAndManager { server, manager in
            let plain = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            let handle = try await manager.dataTask(with: URLRequest(url: rawResponseURL(server, plain)))
            var names: [String] = []
            for try await event in handle.events { names.append(event.name) }
            #expect(!names.contains("trailers"))
            #expect(names.last == "completed")
            let (body, _) = try await manager.stream(for: URLRequest(url: rawResponseURL(server, plain)))
            #expect(try await body.collect() == Data("hello".utf8))
            #expect(body.trailers.isEmpty)
            let client = HTTPClient(manager: manager)
            let result = try await client.send(.get(rawResponseURL(server, plain).absoluteString, as: Data.self))
            #expect(result.trailers.isEmpty)
        }
    }
}
