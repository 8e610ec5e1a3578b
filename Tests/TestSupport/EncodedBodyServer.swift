import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import AsyncNetworking

/// A small HTTP/1.1 server on 127.0.0.1 (port 0) that answers `GET /NAME` with a body registered
/// under that name, sent as is with its `Content-Encoding`, a `Content-Length` equal to the bytes
/// sent, and a clean close — the server of the content-decoding rules (any encoding, truncated or not).
/// It ignores the request's `Accept-Encoding`, as such servers do.
final class EncodedBodyServer: Sendable {
    struct Body: Sendable {
        var contentEncoding: String
        var bytes: Data
    }

    private let connections: RawSocketServer
    private let state = SanitizedMutex(State())

    /// The port it listens on.
    var port: UInt16 { connections.port }

    private struct State {
        var bodies: [String: Body] = [:]
        var acceptEncodings: [String] = []
    }

    init() throws {
        connections = try RawSocketServer()
        connections.start { [self] client in serve(client) }
    }

    /// Serves `bytes` at `/name` with `Content-Encoding: contentEncoding`.
    func serve(_ name: String, contentEncoding: String, _ bytes: Data) {
        state.withLock { $0.bodies[name] = Body(contentEncoding: contentEncoding, bytes: bytes) }
    }

    /// The `Accept-Encoding` values received, in order ("-" for none).
    var acceptEncodings: [String] { state.withLock { $0.acceptEncodings } }

    func url(_ name: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(name)")! }

    /// Stops the server and ends every connection.
    func stop() { connections.stop() }

    private func serve(_ client: Int32) {
        var head = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
            let count = read(client, &chunk, 1)
            if count <= 0 { return }
            head.append(chunk[0])
        }
        let text = String(decoding: head, as: UTF8.self)
        let lines = text.split(separator: "\r\n")
        let path = lines.first?.split(separator: " ").dropFirst().first.map { String($0.dropFirst()) } ?? ""
        let accept = lines.dropFirst().first { $0.lowercased().hasPrefix("accept-encoding:") }
            .map { $0.dropFirst("accept-encoding:".count).trimmingCharacters(in: .whitespaces) } ?? "-"
        let body = state.withLock { state -> Body? in
            state.acceptEncodings.append(accept)
            return state.bodies[path]
        }
        guard let body else {
            reply(client, Data("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
            return
        }
        let isHead = text.hasPrefix("HEAD ")
        reply(client, Data(("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
            + "Content-Encoding: \(body.contentEncoding)\r\nContent-Length: \(body.bytes.count)\r\n"
            + "Connection: close\r\n\r\n").utf8))
        if !isHead { reply(client, body.bytes) }
        shutdown(client, Int32(SHUT_WR))
        // A clean close: wait for the client to close its side (or the server to stop).
        while read(client, &chunk, chunk.count) > 0 {}
    }

    private func reply(_ client: Int32, _ data: Data) {
        data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = Glibc.send(client, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count <= 0 { return }
                sent += count
            }
        }
    }
}
