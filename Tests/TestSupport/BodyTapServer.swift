import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// A raw HTTP/1.1 server on 127.0.0.1 that shows a request body as it arrives: every `POST` has its
/// chunked body decoded as it is read, ``received`` counts the payload bytes so far, and the end of
/// the body is answered `200` with `got N`. While ``stalled`` the server reads nothing more (TCP
/// holds the client back). One thread per connection, none on the cooperative pool.
final class BodyTapServer: Sendable {
    private let connections: RawSocketServer
    private let state = SanitizedMutex(State())

    private struct State {
        var stalled = false
        var received = 0
    }

    /// The port it listens on.
    var port: UInt16 { connections.port }

    /// Starts the server; `stalled` makes it read request heads but no body.
    init(stalled: Bool = false) throws {
        connections = try RawSocketServer()
        state.withLock { $0.stalled = stalled }
        connections.start { [self] client in serve(client) }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Payload bytes received so far, over every request.
    var received: Int { state.withLock { $0.received } }

    /// Stops the server and ends every connection.
    func stop() { connections.stop() }

    private func serve(_ client: Int32) {
        var buffer = [UInt8]()
        guard RawSocketIO.readHead(client, into: &buffer) != nil else { return }
        if state.withLock({ $0.stalled }) {
            // Read nothing more until the client goes away (or the server stops).
            return connections.holdUntilStopped()
        }
        var total = 0
        while true {
            // A chunk: its size line, its bytes and CRLF; size 0 ends the body.
            guard let lineEnd = RawSocketIO.read(client, into: &buffer, until: [13, 10]) else { return }
            let sizeText = String(decoding: buffer[0..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return }
            buffer.removeFirst(lineEnd + 2)
            if size == 0 { break }
            var counted = min(buffer.count, size) // the bytes of this chunk already here
            state.withLock { $0.received += counted }
            while buffer.count < size + 2 {
                guard RawSocketIO.readMore(client, into: &buffer) else { return }
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
        RawSocketIO.send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)")
    }
}
