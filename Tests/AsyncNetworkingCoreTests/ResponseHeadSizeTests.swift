import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import AsyncNetworkingTestSupport

/// Rule: how large a response head is, is the server's choice, and it is bounded: a head of more
/// than 300 KiB (libcurl's bound, in both transports) fails with a typed error. On curl and
/// URLSession. (Trailer sections: ResponseTrailerFloodTests; a digit string of any length as a
/// number: CurlWireNumberTests.)
@Suite("Response head sizes")
struct ResponseHeadSizeTests {
    /// A server that answers every request with `head` then `body` and closes.
    static func withRawServer(_ head: String, body: String = "", _ test: @escaping @Sendable (URL, SessionManager) async throws -> Void) async throws {
        let server = try RawSocketServer()
        defer { server.stop() }
        server.start { client in
            var buffer: [UInt8] = []
            guard RawSocketIO.readHead(client, into: &buffer) != nil else { return }
            RawSocketIO.send(client, head + body)
        }
        try await withServerAndManager { _, manager in
            try await test(URL(string: "http://127.0.0.1:\(server.port)/")!, manager)
        }
    }

    @Test func aHeadOver300KiBFailsWithATypedError() async throws {
        let fields = String(repeating: "X-T: " + String(repeating: "v", count: 90) + "\r\n", count: 4000)
        try await Self.withRawServer("HTTP/1.1 200 OK\r\n" + fields + "Content-Length: 2\r\nConnection: close\r\n\r\n", body: "ok") { url, manager in
            let error = await expectNetworkingError { try await manager.data(from: url) }
            guard case .transport? = error?.kind else {
                Issue.record("expected a transport error, got \(String(describing: error))")
                return
            }
        }
    }
}
