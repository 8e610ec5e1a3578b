import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import AsyncNetworking

/// A hostile little HTTP/1.1 server for one scenario the loopback server cannot play: it answers
/// `POST /first` with `307 → /second` at once, *without reading the request body*, and keeps that
/// connection open without ever reading from it; `POST /second` is read in full (a
/// `Content-Length` or chunked body) and answered `200` with the body's length as its text. A client that waits to finish sending the first body
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
        // One request after another on the connection.
        while let head = RawSocketIO.readHead(client, into: &buffer) {
            let target = RawSocketIO.target(of: head)
            if target.hasPrefix("/first") {
                RawSocketIO.send(client, "HTTP/1.1 307 Temporary Redirect\r\nLocation: /second\r\nContent-Length: 0\r\n\r\n")
                // Never read again: the connection stays open and full until the client gives up
                // (or the server stops).
                return connections.holdUntilStopped()
            }
            guard let length = RawSocketIO.readBody(client, head: head, into: &buffer) else { return }
            state.withLock { $0.secondBodies.append(length) }
            let text = String(length)
            RawSocketIO.send(client, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(text.utf8.count)\r\n\r\n\(text)")
        }
    }
}
