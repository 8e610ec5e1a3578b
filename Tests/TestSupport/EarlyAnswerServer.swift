import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import AsyncNetworking

/// A raw HTTP/1.1 server on 127.0.0.1 that answers a request *before reading its body* and then
/// closes the connection (with the body unread, the kernel resets it), as gunicorn does for a
/// 307 to a large POST:
///
/// - `POST /answer/STATUS` (e.g. `/answer/307`): answers STATUS at once — 301/302/303/307/308
///   with `Location: /landed`; 401 with a Basic challenge and `denied`; 413 with `too large`;
///   200 with `early` — with `Connection: close` unless the path ends in `/keep`, then closes.
/// - `/landed`: reads the whole body (its `Content-Length`, or chunked) and answers `200` with `got N`.
final class EarlyAnswerServer: Sendable {
    private let connections: RawSocketServer
    private let state = SanitizedMutex(State())

    private struct State {
        var landedBodies: [Int] = []
    }

    /// The port it listens on.
    var port: UInt16 { connections.port }

    init() throws {
        connections = try RawSocketServer()
        connections.start { [self] client in serve(client) }
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Body lengths `/landed` received, in arrival order.
    var landedBodies: [Int] { state.withLock { $0.landedBodies } }

    /// Stops the server and ends every connection.
    func stop() { connections.stop() }

    private func serve(_ client: Int32) {
        var buffer = [UInt8]()
        guard let head = RawSocketIO.readHead(client, into: &buffer) else { return }
        let target = RawSocketIO.target(of: head)
        if target.hasPrefix("/answer/") {
            let parts = target.split(separator: "/")
            let status = parts.count > 1 ? Int(parts[1]) ?? 200 : 200
            let keep = target.hasSuffix("/keep")
            return RawSocketIO.send(client, Self.answer(status, connectionClose: !keep))
        }
        guard let length = RawSocketIO.readBody(client, head: head, into: &buffer) else { return }
        state.withLock { $0.landedBodies.append(length) }
        let text = "got \(length)"
        RawSocketIO.send(client, "HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)")
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
}
