/// `/sse-once?retry=MS&count=N`: a Server-Sent Events response that sends `retry: MS` (when
/// given), N events (default 1, `data: event K` with no `id:`), and ends its body at once — the
/// server of a reconnection storm (issue 20, item 12). Every connection gets the same answer.
extension Connection {
    func serveEventOnce() throws {
        var text = request.query("retry").map { "retry: \($0)\n\n" } ?? ""
        for index in 0..<max(0, min(1000, request.queryInt("count") ?? 1)) {
            text += "data: event \(index)\n\n"
        }
        try respond(200, [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")], body: Array(text.utf8))
    }
}
