import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
@testable import AsyncNetworkingTestSupport

/// AsyncHTTPClient #715: a request sent on a kept-alive connection that the server closed at that
/// moment (its idle timeout raced the request) fails there. The rule here: a request written on a
/// *reused* connection that ends before a single byte of the response arrives is sent again, once,
/// on a fresh connection, with its whole body — what libcurl does (its "connection died, retrying a
/// fresh connect", for a connection that dies while it reads), and what browsers do for a stale
/// socket. A request on a fresh connection, or one that got part of a response, is never re-sent
/// (that is the retry policy's decision). A body dies with the connection while it is still being
/// written, which libcurl 7.88 does not retry: the curl transport does (``CurlStaleConnection``);
/// FoundationNetworking's URLSession cannot be made to, and fails it with a transport error
/// (LinuxBehaviour.md).
@Suite("A request on a kept-alive connection the server just closed")
struct StaleConnectionResendTests {
    /// Connection 1 answers its first request, then reads the next one's head and closes without a
    /// byte of answer (the race, made certain). Every later connection answers everything with
    /// `c<connection> <method> <body bytes>`.
    final class RacingServer: Sendable {
        let server: RawSocketServer
        private let connections = SanitizedMutex(0)
        /// (connection, method, path, body bytes) of every request read, in order.
        let seen = SanitizedMutex<[(Int, String, String, Int)]>([])

        init() throws {
            server = try RawSocketServer()
            server.start { [self] client in
                let number = connections.withLock { $0 += 1; return $0 }
                var buffer: [UInt8] = []
                var served = 0
                while let head = RawSocketIO.readHead(client, into: &buffer) {
                    let length = RawSocketIO.contentLength(of: head)
                    let method = String(head.prefix { $0 != " " })
                    if number == 1 && served == 1 {
                        // The head of the second request arrived; its body may be on its way.
                        seen.withLock { $0.append((number, method, RawSocketIO.target(of: head), length)) }
                        shutdown(client, Int32(SHUT_RDWR))
                        return
                    }
                    if head.lowercased().contains("expect: 100-continue") {
                        RawSocketIO.send(client, "HTTP/1.1 100 Continue\r\n\r\n")
                    }
                    guard RawSocketIO.read(client, into: &buffer, count: length) else { return }
                    buffer.removeFirst(length)
                    seen.withLock { $0.append((number, method, RawSocketIO.target(of: head), length)) }
                    let body = method == "HEAD" ? "" : "c\(number) \(method) \(length)"
                    let declared = "c\(number) \(method) \(length)".utf8.count
                    RawSocketIO.send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(declared)\r\nContent-Type: text/plain\r\n\r\n\(body)")
                    served += 1
                }
            }
        }

        func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)\(path)")! }
        deinit { server.stop() }
    }

    private static func run(_ method: String, body: Data?, fromFile: Bool = false) async throws -> (String, [(Int, String, String, Int)]) {
        let server = try RacingServer()
        defer { server.server.stop() }
        let manager = SessionManager(configuration: SessionManager.defaultConfiguration())
        do {
            let result = try await withDeadline {
                let (first, _) = try await manager.data(from: server.url("/first"))
                #expect(String(decoding: first, as: UTF8.self) == "c1 GET 0")
                var request = URLRequest(url: server.url("/second"))
                request.httpMethod = method
                let file = if let body, fromFile { try Self.file(holding: body) } else { URL?.none }
                defer { if let file { try? FileManager.default.removeItem(at: file) } }
                let (data, response) = if let file {
                    try await manager.upload(for: request, fromFile: file)
                } else if let body {
                    try await manager.upload(for: request, from: body)
                } else {
                    try await manager.data(for: request)
                }
                #expect(response.statusCode == 200)
                return String(decoding: data, as: UTF8.self)
            }
            await manager.invalidateAndCancel()
            return (result, server.seen.withLock { $0 })
        } catch {
            await manager.invalidateAndCancel()
            throw error
        }
    }

    @Test(arguments: ["GET", "DELETE", "OPTIONS"])
    func aRequestWithoutABodyIsSentAgainOnAFreshConnection(method: String) async throws {
        let (answer, seen) = try await Self.run(method, body: nil)
        #expect(answer == "c2 \(method) 0")
        #expect(seen.map { "\($0.0) \($0.1) \($0.2)" } == ["1 GET /first", "1 \(method) /second", "2 \(method) /second"])
    }

    @Test func aHEADIsSentAgainOnAFreshConnection() async throws {
        let (answer, seen) = try await Self.run("HEAD", body: nil)
        #expect(answer.isEmpty)
        #expect(seen.map { "\($0.0) \($0.1) \($0.2)" } == ["1 GET /first", "1 HEAD /second", "2 HEAD /second"])
    }

    /// The body goes again whole: libcurl rewinds a body it holds (PUT is idempotent; a POST is
    /// re-sent too, as browsers do for a stale socket: no byte of an answer came back).
    private static func file(holding data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stale-\(UUID().uuidString).bin")
        try data.write(to: url)
        return url
    }

    @Test(.enabled(if: defaultTransportIsCurl, "FoundationNetworking's URLSession fails a body written on a stale connection (LinuxBehaviour.md)"),
          arguments: [("PUT", false), ("POST", false), ("PUT", true), ("POST", true)])
    func aRequestWithABodyIsSentAgainWhole(method: String, fromFile: Bool) async throws {
        let body = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let (answer, seen) = try await Self.run(method, body: body, fromFile: fromFile)
        #expect(answer == "c2 \(method) 100000")
        #expect(seen.map { "\($0.0) \($0.1) \($0.3)" } == ["1 GET 0", "1 \(method) 100000", "2 \(method) 100000"])
    }
}
