import Foundation
#if canImport(Glibc)
import Glibc
import AsyncNetworking
#endif

/// A raw-socket HTTP/1.1 server that answers each path with exact header lines the test wrote
/// (so `Set-Cookie` lines, redirects with cookies and their order are byte-for-byte what a real
/// server would send), and records each request's target and `Cookie` field. One response per
/// connection (`Connection: close`); unknown paths get `200 ok`.
final class ScriptedCookieServer: Sendable {
    /// A scripted answer: status line and header lines (without `Content-Length`, added).
    struct Answer: Sendable {
        var status: String = "200 OK"
        var headers: [String] = []
    }

    /// One request as received.
    struct Seen: Sendable {
        var target: String
        var cookie: String?
    }

    private let connections: RawSocketServer
    private let state: SanitizedMutex<State>

    private struct State {
        var answers: [String: Answer]
        var seen: [Seen] = []
    }

    /// The port it listens on.
    var port: UInt16 { connections.port }

    /// Starts serving `answers`, keyed by path (the query is ignored for the lookup).
    init(_ answers: [String: Answer]) throws {
        connections = try RawSocketServer()
        state = SanitizedMutex(State(answers: answers))
        connections.start { [self] client in serve(client) }
    }

    func url(_ path: String, host: String = "127.0.0.1") -> URL { URL(string: "http://\(host):\(port)\(path)")! }

    /// The requests received, in order.
    var seen: [Seen] { state.withLock { $0.seen } }

    /// The `Cookie` field of the last request for `path`.
    func cookie(at path: String) -> String? {
        seen.last { $0.target.split(separator: "?").first.map(String.init) == path }?.cookie
    }

    /// Stops the server and ends every connection.
    func stop() { connections.stop() }

    private func serve(_ client: Int32) {
        var buffer = [UInt8]()
        guard let head = RawSocketIO.readHead(client, into: &buffer) else { return }
        let lines = head.components(separatedBy: "\r\n")
        let target = RawSocketIO.target(of: head)
        let cookie = lines.dropFirst().first { $0.lowercased().hasPrefix("cookie:") }
            .map { String($0.dropFirst("cookie:".count)).trimmingCharacters(in: .whitespaces) }
        let path = target.split(separator: "?").first.map(String.init) ?? target
        let answer = state.withLock { state -> Answer in
            state.seen.append(Seen(target: target, cookie: cookie))
            return state.answers[path] ?? Answer()
        }
        let body = "ok"
        var text = "HTTP/1.1 \(answer.status)\r\n"
        for line in answer.headers { text += line + "\r\n" }
        text += "Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        RawSocketIO.send(client, text)
    }
}
