import Foundation
@testable import AsyncNetworking
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A raw HTTP/1.1 server on 127.0.0.1 that answers a request *before reading its body* and then
/// closes the connection (with the body unread, the kernel resets it), as gunicorn does for a
/// 307 to a large POST:
///
/// - `POST /answer/STATUS` (e.g. `/answer/307`): answers STATUS at once — 301/302/303/307/308
///   with `Location: /landed`; 401 with a Basic challenge and `denied`; 413 with `too large`;
///   200 with `early` — with `Connection: close` unless the path ends in `/keep`, then closes.
/// - `/landed`: reads the whole body (its `Content-Length`) and answers `200` with `got N`.
final class EarlyAnswerServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = SanitizedMutex(State())

    private struct State {
        var stopped = false
        var open: Set<Int32> = []
        var landedBodies: [Int] = []
    }

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 128) == 0 else { close(listener); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        Thread { [self] in acceptLoop() }.start()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Body lengths `/landed` received, in arrival order.
    var landedBodies: [Int] { state.withLock { $0.landedBodies } }

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
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.open.insert(client)
                return true
            }
            guard admitted else { close(client); return }
            Thread { [self] in
                serve(client)
                state.withLock { _ = $0.open.remove(client) }
                close(client)
            }.start()
        }
    }

    private func serve(_ client: Int32) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var headEnd: Int?
        while headEnd == nil {
            if let end = Self.find([13, 10, 13, 10], in: buffer) { headEnd = end; break }
            let count = read(client, &chunk, chunk.count)
            if count <= 0 { return }
            buffer += chunk[0..<count]
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        buffer.removeFirst(headEnd! + 4)
        let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        if target.hasPrefix("/answer/") {
            let parts = target.split(separator: "/")
            let status = parts.count > 1 ? Int(parts[1]) ?? 200 : 200
            let keep = target.hasSuffix("/keep")
            return send(client, Self.answer(status, connectionClose: !keep))
        }
        let length = head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
        while buffer.count < length {
            let count = read(client, &chunk, chunk.count)
            if count <= 0 { return }
            buffer += chunk[0..<count]
        }
        state.withLock { $0.landedBodies.append(length) }
        let text = "got \(length)"
        send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)")
    }

    static func answer(_ status: Int, connectionClose: Bool) -> String {
        let close = connectionClose ? "Connection: close\r\n" : ""
        switch status {
        case 301, 302, 303, 307, 308:
            return "HTTP/1.1 \(status) Moved\r\nLocation: /landed\r\nContent-Length: 0\r\n\(close)\r\n"
        case 401:
            return "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"early\"\r\nContent-Length: 6\r\n\(close)\r\ndenied"
        case 413:
            return "HTTP/1.1 413 Content Too Large\r\nContent-Type: text/plain\r\nContent-Length: 9\r\n\(close)\r\ntoo large"
        default:
            return "HTTP/1.1 \(status) Early\r\nContent-Length: 5\r\n\(close)\r\nearly"
        }
    }

    private func send(_ client: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where haystack[index..<index + needle.count].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
