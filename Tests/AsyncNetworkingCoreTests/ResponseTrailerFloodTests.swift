import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import AsyncNetworkingTestSupport

/// Rule: a server choosing how long its trailer section is cannot make the client keep it all:
/// after a chunked body, 2 MB of trailer lines complete the response with its body, and the
/// trailers delivered are bounded (300 KiB of trailer lines, as libcurl bounds a head). Curl only:
/// FoundationNetworking traps the process on trailers (LinuxBehaviour).
@Suite(
    "Response trailer floods",
    .enabled(if: defaultTransportIsCurl, "FoundationNetworking traps the process on trailers; see LinuxBehaviour")
)
struct ResponseTrailerFloodTests {
    @Test func aTrailerFloodIsBoundedAndTheBodyArrives() async throws {
        let server = try RawSocketServer()
        defer { server.stop() }
        server.start { client in
            var buffer: [UInt8] = []
            guard RawSocketIO.readHead(client, into: &buffer) != nil else { return }
            RawSocketIO.send(client, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\nok\r\n0\r\n")
            let line = "X-T: " + String(repeating: "v", count: 90) + "\r\n"
            let block = String(repeating: line, count: 1000)
            for _ in 0..<20 { RawSocketIO.send(client, block) }
            RawSocketIO.send(client, "\r\n")
        }
        try await withServerAndManager { _, manager in
            let url = URL(string: "http://127.0.0.1:\(server.port)/flood")!
            let handle = try await manager.dataTask(with: URLRequest(url: url))
            var body = Data()
            var trailers: HTTPHeaders?
            for try await event in handle.events {
                if case .data(let chunk) = event { body.append(chunk) }
                if case .trailers(let fields) = event { trailers = fields }
            }
            #expect(body == Data("ok".utf8))
            let kept = trailers?["X-T"]?.utf8.count ?? 0
            #expect(kept > 0 && kept <= 300 << 10, "\(kept) bytes of X-T kept")
        }
    }
}
