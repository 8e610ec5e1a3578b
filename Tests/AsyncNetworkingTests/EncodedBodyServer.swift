import Foundation
@testable import AsyncNetworking
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A small HTTP/1.1 server on 127.0.0.1 (port 0) that answers `GET /NAME` with a body registered
/// under that name, sent as is with its `Content-Encoding`, a `Content-Length` equal to the bytes
/// sent, and a clean close — the server of issue 20 items 7–8 (any encoding, truncated or not).
/// It ignores the request's `Accept-Encoding`, as such servers do.
final class EncodedBodyServer: Sendable {
    struct Body: Sendable {
        var contentEncoding: String
        var bytes: Data
    }

    let port: UInt16
    private let listener: Int32
    private let state = SanitizedMutex(State())

    private struct State {
        var stopped = false
        var open: [Int32] = []
        var bodies: [String: Body] = [:]
        var acceptEncodings: [String] = []
    }

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { close(listener); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        Thread { [self] in acceptLoop() }.start()
    }

    /// Serves `bytes` at `/name` with `Content-Encoding: contentEncoding`.
    func serve(_ name: String, contentEncoding: String, _ bytes: Data) {
        state.withLock { $0.bodies[name] = Body(contentEncoding: contentEncoding, bytes: bytes) }
    }

    /// The `Accept-Encoding` values received, in order ("-" for none).
    var acceptEncodings: [String] { state.withLock { $0.acceptEncodings } }

    func url(_ name: String) -> URL { URL(string: "http://127.0.0.1:\(port)/\(name)")! }

    /// Stops accepting and ends every connection. Idempotent. Sockets are shut down under the
    /// lock, while their serving threads cannot have closed them (they leave the set under the
    /// same lock before closing), so no descriptor number reused elsewhere is ever touched.
    func stop() {
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
            for socket in state.open { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let keep = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.open.append(client)
                return true
            }
            guard keep else { close(client); return }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer {
            state.withLock { $0.open.removeAll { $0 == client } }
            close(client)
        }
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
