/// `/fault/…`: broken responses for testing client error handling. Each reads the whole
/// request first (so it is recorded) and then misbehaves; the connection is not reused.
extension Connection {
    /// Dispatches `/fault/NAME`.
    ///
    /// - `reset`: no response; the connection is closed with RST.
    /// - `short-body`: `Content-Length: 1000`, 10 body bytes, then close.
    /// - `bad-status-line`: `HTTP/1.1 abc`, then close.
    /// - `bad-header`: a valid status line, then a header line without a colon, then a body.
    /// - `no-response`: never answers; holds the connection until the client closes it or `stop()`.
    /// - `close`: closes at once without a response.
    func serveFault(_ name: String) throws {
        switch name {
        case "reset":
            try finishRequest()
            disposition = .reset
        case "short-body":
            try startResponse(200, [("Content-Type", "text/plain; charset=utf-8")], contentLength: 1000)
            try Array("0123456789".utf8).withUnsafeBytes { try writeBody($0) }
            try flush()
            disposition = .closeAbruptly
        case "bad-status-line":
            try finishRequest()
            try sendRaw("HTTP/1.1 abc\r\n\r\n")
            disposition = .closeAbruptly
        case "bad-header":
            try finishRequest()
            try sendRaw(
                "HTTP/1.1 200 OK\r\nServer: LoopbackServer\r\nthis is not a header\r\n"
                    + "Content-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello"
            )
            disposition = .closeAbruptly
        case "no-response":
            try finishRequest()
            try holdUntilClosed()
        case "close":
            try finishRequest()
            disposition = .closeAbruptly
        default:
            try respondText(404, "not found")
        }
    }
}
