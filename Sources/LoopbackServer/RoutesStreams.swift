import Foundation

/// `/sse` and `/ndjson/N`: long streamed bodies for decoded-stream tests. Each takes `log=KEY`,
/// which records every connection to the route under that key (see
/// ``LoopbackServer/streamConnections(_:)``): when it opened and closed, the `Last-Event-ID` it
/// sent, and how many body bytes the kernel accepted so far — so a test can see reconnection
/// delays and how far the server got ahead of a slow reader.
extension Connection {
    /// `/sse?count=N&drop_every=K&retry=MS&delay=MS&status=S&type=T&log=KEY`: a Server-Sent Events
    /// stream of events `0..<N` (default 10), each `id: i` with two `data:` lines (`event i` and
    /// `line 2 of i`), resuming after the `Last-Event-ID` the client sends. Starts with `retry: MS`
    /// when given. With `drop_every=K`, after K whole events the connection sends half of the next
    /// event and closes abruptly (the client must not deliver that half, and must ask for it again).
    /// `delay=MS` waits between events (default 0). Once every event has been sent the body ends;
    /// a request resuming at or past N gets `204`. `status` and `type` replace the status (default
    /// 200) and `Content-Type` (default `text/event-stream`).
    func serveServerSentEvents() throws {
        let count = max(0, request.queryInt("count") ?? 10)
        let dropEvery = request.queryInt("drop_every").flatMap { $0 > 0 ? $0 : nil }
        let delay = max(0, request.queryInt("delay") ?? 0)
        let lastEventID = request.header("Last-Event-ID")
        let start = lastEventID.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { $0 + 1 } ?? 0
        let record = StreamRouteLog.open(port: core.port, key: request.query("log"), lastEventID: lastEventID)
        defer { StreamRouteLog.close(record) }
        if start >= count { return try respond(204, [], body: []) }
        let status = request.queryInt("status") ?? 200
        try startResponse(status, [
            ("Content-Type", request.query("type") ?? "text/event-stream"),
            ("Cache-Control", "no-cache"),
        ], contentLength: nil)
        if let retry = request.query("retry") { try writeStreamText("retry: \(retry)\n\n", record: record) }
        var sent = 0
        for index in start..<count {
            if let dropEvery, sent == dropEvery {
                try writeStreamText("id: \(index)\ndata: event \(index)\n", record: record)
                disposition = .closeAbruptly
                return
            }
            if delay > 0 && sent > 0 { try sleep(milliseconds: delay) }
            try writeStreamText("id: \(index)\ndata: event \(index)\ndata: line 2 of \(index)\n\n", record: record)
            sent += 1
        }
        try finishBody()
    }

    /// `/ndjson/N?pad=P&log=KEY`: N (use a huge N for an endless stream) JSON Lines
    /// `{"index":i,"text":"xx…"}` with P (default 100) `x`s each, chunked, written in batches of
    /// about 64 KiB. The log's byte count is what the kernel accepted after each batch.
    func serveJSONLines(count text: String) throws {
        guard let count = Int(text), count >= 0 else { return try respondText(400, "invalid count \(text)\n") }
        let padding = String(repeating: "x", count: max(0, min(1 << 20, request.queryInt("pad") ?? 100)))
        let record = StreamRouteLog.open(port: core.port, key: request.query("log"), lastEventID: nil)
        defer { StreamRouteLog.close(record) }
        try startResponse(200, [("Content-Type", "application/x-ndjson")], contentLength: nil)
        var batch = ""
        for index in 0..<count {
            batch += "{\"index\":\(index),\"text\":\"\(padding)\"}\n"
            if batch.utf8.count >= 64 << 10 || index == count - 1 {
                try writeStreamText(batch, record: record)
                batch = ""
            }
        }
        try finishBody()
    }

    /// Writes and sends `text` at once, then counts it in the log.
    private func writeStreamText(_ text: String, record: StreamRouteLog.Handle?) throws {
        let bytes = Array(text.utf8)
        try bytes.withUnsafeBytes { try writeBody($0) }
        try flush()
        StreamRouteLog.wrote(bytes.count, record)
    }
}

extension LoopbackServer {
    /// One connection to a streaming route, as recorded under its `log=` key.
    public struct StreamConnection: Sendable {
        /// The `Last-Event-ID` header the request carried.
        public var lastEventID: String?
        /// When the route started handling the request.
        public var openedAt: ContinuousClock.Instant
        /// When the route stopped writing (ended, dropped, or found the client gone); `nil` while it runs.
        public var closedAt: ContinuousClock.Instant?
        /// Body bytes written so far (accepted by the kernel).
        public var bytesWritten: Int
    }

    /// The connections recorded under `key` by `/sse` and `/ndjson/N` (`log=KEY`), oldest first.
    public func streamConnections(_ key: String) -> [StreamConnection] {
        StreamRouteLog.connections(port: port, key: key)
    }
}

/// The stream routes' log, shared by every server in the process and keyed by port and key.
enum StreamRouteLog {
    struct Handle { let key: String; let index: Int }

    private static let entries = SanitizedMutex<[String: [LoopbackServer.StreamConnection]]>([:])

    static func open(port: UInt16, key: String?, lastEventID: String?) -> Handle? {
        guard let key else { return nil }
        let full = "\(port)/\(key)"
        let connection = LoopbackServer.StreamConnection(lastEventID: lastEventID, openedAt: .now, closedAt: nil, bytesWritten: 0)
        return entries.withLock { entries in
            entries[full, default: []].append(connection)
            return Handle(key: full, index: entries[full]!.count - 1)
        }
    }

    static func wrote(_ count: Int, _ handle: Handle?) {
        guard let handle else { return }
        entries.withLock { $0[handle.key]?[handle.index].bytesWritten += count }
    }

    static func close(_ handle: Handle?) {
        guard let handle else { return }
        entries.withLock { $0[handle.key]?[handle.index].closedAt = .now }
    }

    static func connections(port: UInt16, key: String) -> [LoopbackServer.StreamConnection] {
        entries.withLock { $0["\(port)/\(key)"] ?? [] }
    }
}
