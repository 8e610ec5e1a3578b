import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// A raw HTTP/1.1 server on 127.0.0.1 for full-duplex and request-trailer tests. It reads a
/// chunked request body chunk by chunk, as it arrives, and by path:
///
/// - `/echo`: sends a chunked `200` head as soon as the request head is read, then writes each
///   request chunk back as a response chunk the moment it has it (nothing is waited for), and
///   ends the response after the request's last chunk, with the trailer `X-Echoed-Bytes: N`.
/// - `/first`: speaks first — sends a chunked `200` head and the chunk `hello` before reading any
///   request body, then reads the whole body and ends with the chunk `got N`.
/// - `/status/NNN`: answers `NNN` with a 5-byte body and `Connection: close` as soon as the head is
///   read, then keeps reading (and counting) whatever body still comes, until the client closes.
/// - `/complete/NNN/cl` and `/complete/NNN/chunked`: answers `NNN` with the complete body
///   `complete NNN` (a `Content-Length`, or chunked with its last chunk) as soon as the head is
///   read — no `Connection: close` — then keeps reading (and recording) whatever body still comes,
///   until the client closes.
/// - anything else (`/record`): reads the whole body, then answers `200` with `got N`.
///
/// Every request's raw bytes (head, chunk framing, trailer section) are kept in ``requests``;
/// ``trailers`` are the trailer fields each request's chunked body ended with. One thread per
/// connection, none on the cooperative pool.
final class DuplexTestServer: Sendable {
    /// What one request looked like on the wire.
    struct Recorded: Sendable {
        var head = ""
        var raw: [UInt8] = []
        var payload = 0
        var trailerLines: [String] = []
        /// Whether the last chunk and the trailer section's blank line arrived.
        var complete = false
    }

    private let connections: RawSocketServer
    private let state = SanitizedMutex<(requests: [Recorded], closed: Int)>(([], 0))

    /// The port it listens on.
    var port: UInt16 { connections.port }

    init() throws {
        connections = try RawSocketServer()
        connections.start { [self] client in serve(client) }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Requests seen so far (each updated while its body arrives).
    var requests: [Recorded] { state.withLock { $0.requests } }

    /// Connections the client has closed (read returned 0 or failed) or the server finished.
    var closedConnections: Int { state.withLock { $0.closed } }

    /// Stops the server and ends every connection.
    func stop() { connections.stop() }

    // MARK: - Serving

    private func serve(_ client: Int32) {
        defer { state.withLock { $0.closed += 1 } }
        var connection = Connection(client: client)
        guard let head = connection.readHead() else { return }
        let index = state.withLock { state -> Int in
            state.requests.append(Recorded(head: head, raw: Array((head + "\r\n\r\n").utf8)))
            return state.requests.count - 1
        }
        let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
        let record: @Sendable ([UInt8], Int, [String], Bool) -> Void = { [state] raw, payload, trailers, complete in
            state.withLock {
                $0.requests[index].raw += raw
                $0.requests[index].payload += payload
                $0.requests[index].trailerLines += trailers
                if complete { $0.requests[index].complete = true }
            }
        }
        if target.hasPrefix("/status/") {
            let status = Int(target.dropFirst("/status/".count)) ?? 500
            connection.write("HTTP/1.1 \(status) Early\r\nContent-Length: 5\r\nConnection: close\r\n\r\nearly")
            _ = connection.readBody(record) { _ in }
            return
        }
        if target.hasPrefix("/complete/") {
            let parts = target.split(separator: "/")
            let status = parts.count > 1 ? Int(parts[1]) ?? 200 : 200
            let text = "complete \(status)"
            if parts.count > 2, parts[2] == "chunked" {
                connection.write("HTTP/1.1 \(status) Done\r\nTransfer-Encoding: chunked\r\n\r\n" + Self.chunkText(text) + "0\r\n\r\n")
            } else {
                connection.write("HTTP/1.1 \(status) Done\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
            }
            _ = connection.readBody(record) { _ in }
            return
        }
        let chunkedHead = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        switch target {
        case "/echo":
            connection.write(chunkedHead)
            let total = connection.readBody(record) { chunk in
                Connection.write(client, Self.chunk(chunk))
            }
            guard let total else { return }
            connection.write("0\r\nX-Echoed-Bytes: \(total)\r\n\r\n")
        case "/first":
            connection.write(chunkedHead + Self.chunkText("hello"))
            guard let total = connection.readBody(record, onChunk: { _ in }) else { return }
            connection.write(Self.chunkText("got \(total)") + "0\r\n\r\n")
        default:
            guard let total = connection.readBody(record, onChunk: { _ in }) else { return }
            let text = "got \(total)"
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)")
        }
    }

    static func chunk(_ bytes: [UInt8]) -> [UInt8] {
        Array(String(bytes.count, radix: 16).utf8) + [13, 10] + bytes + [13, 10]
    }

    static func chunkText(_ text: String) -> String {
        String(text.utf8.count, radix: 16) + "\r\n" + text + "\r\n"
    }
}

/// One connection's reading and writing (the serving thread's only).
private struct Connection {
    let client: Int32
    var buffer: [UInt8] = []

    init(client: Int32) { self.client = client }

    /// The request head without its blank line, or `nil` when the client went away first.
    mutating func readHead() -> String? {
        guard let end = readUntil([13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        return head
    }

    /// Reads a chunked body, calling `onChunk` with each chunk's bytes as soon as they are all
    /// here, and `record` with the raw bytes taken, payload bytes, trailer lines and completion.
    /// Returns the payload's length, or `nil` when the connection ended first.
    mutating func readBody(
        _ record: @Sendable ([UInt8], Int, [String], Bool) -> Void, onChunk: ([UInt8]) -> Void
    ) -> Int? {
        var total = 0
        while true {
            guard let lineEnd = readUntil([13, 10]) else { return nil }
            let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            let line = Array(buffer[0..<(lineEnd + 2)])
            buffer.removeFirst(lineEnd + 2)
            if size == 0 {
                record(line, 0, [], false)
                break
            }
            while buffer.count < size + 2 {
                guard readMore() else { return nil }
            }
            let chunk = Array(buffer[0..<size])
            record(line + buffer[0..<(size + 2)], size, [], false)
            buffer.removeFirst(size + 2)
            total += size
            onChunk(chunk)
        }
        // The trailer section: field lines up to a blank line.
        while true {
            guard let lineEnd = readUntil([13, 10]) else { return nil }
            let raw = Array(buffer[0..<(lineEnd + 2)])
            let line = String(decoding: buffer[0..<lineEnd], as: UTF8.self)
            buffer.removeFirst(lineEnd + 2)
            if line.isEmpty {
                record(raw, 0, [], true)
                return total
            }
            record(raw, 0, [line], false)
        }
    }

    /// Reads until `needle` is in the buffer; its offset, or `nil` when the connection ended.
    private mutating func readUntil(_ needle: [UInt8]) -> Int? {
        while true {
            if let found = Self.find(needle, in: buffer) { return found }
            guard readMore() else { return nil }
        }
    }

    private mutating func readMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = read(client, &chunk, chunk.count)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    func write(_ text: String) { Self.write(client, Array(text.utf8)) }

    static func write(_ client: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return haystack.indices.dropLast(needle.count - 1).first { index in
            haystack[index..<(index + needle.count)].elementsEqual(needle)
        }
    }
}
