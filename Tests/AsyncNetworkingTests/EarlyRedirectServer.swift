import Foundation
@testable import AsyncNetworking
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A hostile little HTTP/1.1 server for one scenario the loopback server cannot play: it answers
/// `POST /first` with `307 → /second` at once, *without reading the request body*, and keeps that
/// connection open without ever reading from it; `POST /second` is read in full and answered
/// `200` with the body's length as its text. A client that waits to finish sending the first body
/// before following the redirect stalls until it times out.
final class EarlyRedirectServer: Sendable {
    private let connections: RawSocketServer
    private let state = SanitizedMutex(State())

    private struct State {
        var secondBodies: [Int] = []
    }

    /// The port it listens on.
    var port: UInt16 { connections.port }

    init() throws {
        connections = try RawSocketServer()
        connections.start { [self] client in serve(client) }
    }

    /// Body lengths received by `/second`, in arrival order.
    var secondBodies: [Int] { state.withLock { $0.secondBodies } }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Stops the server and ends every connection (those left open after a 307 included).
    func stop() { connections.stop() }

    private func serve(_ client: Int32) {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // Read one request head.
            var headEnd: Int?
            while headEnd == nil {
                if let range = Self.find([13, 10, 13, 10], in: buffer) { headEnd = range; break }
                let count = read(client, &chunk, chunk.count)
                if count <= 0 { return }
                buffer += chunk[0..<count]
            }
            let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
            buffer.removeFirst(headEnd! + 4)
            let target = head.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let length = head.split(separator: "\r\n").compactMap { line -> Int? in
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                return Int(parts[1].trimmingCharacters(in: .whitespaces))
            }.first ?? 0
            if target.hasPrefix("/first") {
                send(client, "HTTP/1.1 307 Temporary Redirect\r\nLocation: /second\r\nContent-Length: 0\r\n\r\n")
                // Never read again: the connection stays open and full until the client gives up
                // (or the server stops).
                return connections.holdUntilStopped()
            }
            while buffer.count < length {
                let count = read(client, &chunk, chunk.count)
                if count <= 0 { return }
                buffer += chunk[0..<count]
            }
            buffer.removeFirst(length)
            state.withLock { $0.secondBodies.append(length) }
            let text = String(length)
            send(client, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
        }
    }

    private func send(_ client: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeMutableBytes { write(client, $0.baseAddress! + sent, $0.count - sent) }
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
