import Foundation
@testable import AsyncNetworking
#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP/1.1 server on 127.0.0.1 that shows a request body as it arrives: every `POST` has its
/// chunked body decoded as it is read, ``received`` counts the payload bytes so far, and the end of
/// the body is answered `200` with `got N`. While ``stalled`` the server reads nothing more (TCP
/// holds the client back). One thread per connection, none on the cooperative pool.
final class BodyTapServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let state = SanitizedMutex(State())

    private struct State {
        var stopped = false
        var stalled = false
        var received = 0
        var open: Set<Int32> = []
    }

    /// Starts the server; `stalled` makes it read request heads but no body.
    init(stalled: Bool = false) throws {
        (listener, port) = try openLoopbackListener()
        state.withLock { $0.stalled = stalled }
        Thread { [self] in acceptLoop() }.start()
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Payload bytes received so far, over every request.
    var received: Int { state.withLock { $0.received } }

    func stop() {
        let sockets = state.withLock { state -> Set<Int32> in
            state.stopped = true
            return state.open
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
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
        guard readUntil(client, &buffer, { Self.find([13, 10, 13, 10], in: $0) != nil }) else { return }
        let headEnd = Self.find([13, 10, 13, 10], in: buffer)!
        buffer.removeFirst(headEnd + 4)
        if state.withLock({ $0.stalled }) {
            // Read nothing more until the client goes away (or the server stops).
            var byte: UInt8 = 0
            _ = recv(client, &byte, 0, 0)
            while !state.withLock({ $0.stopped }) { usleep(20_000) }
            return
        }
        var total = 0
        while true {
            // A chunk: its size line, its bytes and CRLF; size 0 ends the body.
            guard readUntil(client, &buffer, { Self.find([13, 10], in: $0) != nil }) else { return }
            let lineEnd = Self.find([13, 10], in: buffer)!
            let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return }
            buffer.removeFirst(lineEnd + 2)
            if size == 0 { break }
            var counted = min(buffer.count, size) // the bytes of this chunk already here
            state.withLock { $0.received += counted }
            while buffer.count < size + 2 {
                guard readMore(client, &buffer) else { return }
                let now = min(buffer.count, size)
                if now > counted {
                    state.withLock { [counted] in $0.received += now - counted }
                    counted = now
                }
            }
            total += size
            buffer.removeFirst(size + 2)
        }
        let text = "got \(total)"
        send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)")
    }

    private func readUntil(_ client: Int32, _ buffer: inout [UInt8], _ done: ([UInt8]) -> Bool) -> Bool {
        while !done(buffer) {
            guard readMore(client, &buffer) else { return false }
        }
        return true
    }

    private func readMore(_ client: Int32, _ buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let count = read(client, &chunk, chunk.count)
        guard count > 0 else { return false }
        buffer += chunk[0..<count]
        return true
    }

    private func send(_ client: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
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
