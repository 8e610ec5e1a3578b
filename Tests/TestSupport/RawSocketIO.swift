import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// The byte-level reading and writing the raw-socket test servers share (with ``RawSocketServer``
/// for the connections): a request head read up to its blank line, a body read to a length, an
/// answer written in full.
enum RawSocketIO {
    /// Reads what `client` has next onto `buffer`; `false` when the connection ended or failed.
    static func readMore(_ client: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = Glibc.read(client, &chunk, chunk.count)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    /// Reads until `buffer` holds `needle`; its index, or `nil` when the connection ended first.
    static func read(_ client: Int32, into buffer: inout [UInt8], until needle: [UInt8]) -> Int? {
        while true {
            if let index = firstIndex(of: needle, in: buffer) { return index }
            guard readMore(client, into: &buffer) else { return nil }
        }
    }

    /// Reads a request head, removes it and its blank line from `buffer` and returns it (without
    /// the blank line); `nil` when the connection ended first.
    static func readHead(_ client: Int32, into buffer: inout [UInt8]) -> String? {
        guard let end = read(client, into: &buffer, until: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        return head
    }

    /// Reads until `buffer` holds at least `count` bytes; `false` when the connection ended first.
    static func read(_ client: Int32, into buffer: inout [UInt8], count: Int) -> Bool {
        while buffer.count < count {
            guard readMore(client, into: &buffer) else { return false }
        }
        return true
    }

    /// Reads a request body — chunked when the head says so, else its `Content-Length` — and
    /// removes it from `buffer`; its length, or `nil` when the connection ended first.
    static func readBody(_ client: Int32, head: String, into buffer: inout [UInt8]) -> Int? {
        guard head.lowercased().contains("transfer-encoding: chunked") else {
            let length = contentLength(of: head)
            guard read(client, into: &buffer, count: length) else { return nil }
            buffer.removeFirst(length)
            return length
        }
        var total = 0
        while true {
            guard let end = read(client, into: &buffer, until: [13, 10]) else { return nil }
            let text = String(decoding: buffer[0..<end], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(text.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            buffer.removeFirst(end + 2)
            if size == 0 {
                // The trailer section, up to its blank line.
                while let line = read(client, into: &buffer, until: [13, 10]) {
                    buffer.removeFirst(line + 2)
                    if line == 0 { return total }
                }
                return nil
            }
            guard read(client, into: &buffer, count: size + 2) else { return nil }
            buffer.removeFirst(size + 2)
            total += size
        }
    }

    /// The request target of a head (`/path?query`), `/` when it has none.
    static func target(of head: String) -> String {
        head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
    }

    /// The `Content-Length` of a head, `0` when it has none.
    static func contentLength(of head: String) -> Int {
        head.split(separator: "\r\n").compactMap { line -> Int? in
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
            return Int(parts[1].trimmingCharacters(in: .whitespaces))
        }.first ?? 0
    }

    /// Writes all of `text` to `client` (no SIGPIPE); stops early when the peer has gone.
    static func send(_ client: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// Where `needle` first stands in `haystack`.
    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}
