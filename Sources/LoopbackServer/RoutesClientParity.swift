import Foundation

/// `/reply` and `/multipart-headers`: routes for the HTTP client's parity tests.
extension Connection {
    /// `/reply?type=T&body=B[&status=S][&gate=NAME]`: status S (default 200) with body B (UTF-8,
    /// default empty) labelled `Content-Type: T` (none when `type` is absent). The request body is
    /// read and discarded. With `gate`, the answer waits until the test opens gate NAME
    /// (``LoopbackServer/openGate(_:)``).
    func serveReply() throws {
        try finishRequest()
        if let gate = request.query("gate") { try waitForGate(gate) }
        let status = request.queryInt("status") ?? 200
        guard (200...599).contains(status) else { return try respondText(400, "invalid status\n") }
        var headers: [(String, String)] = []
        if let type = request.query("type") { headers.append(("Content-Type", type)) }
        try respond(status, headers, body: Array((request.query("body") ?? "").utf8))
    }

    /// `/multipart-headers`: the raw header lines of each part of a `multipart/form-data` body, as
    /// JSON `{"parts": [{"headers": ["Name: value", …], "value": "…"}]}` (values under 64 KiB as
    /// UTF-8, else null); 400 when malformed.
    func serveMultipartHeaders() throws {
        guard let body = try readMultipartBody() else { return }
        let (boundary, bytes, parts) = (body.boundary, body.bytes, body.parts)
        let delimiter = Array("--\(boundary)\r\n".utf8)
        let described: [[String: Any]] = parts.map { part in
            let headerEnd = part.content.lowerBound - 4
            var start = headerEnd
            while start >= delimiter.count, !bytes[(start - delimiter.count)..<start].elementsEqual(delimiter) { start -= 1 }
            let text = String(decoding: bytes[start..<max(start, headerEnd)], as: UTF8.self)
            return ["headers": text.components(separatedBy: "\r\n").filter { !$0.isEmpty }, "value": Self.textValue(bytes[part.content])]
        }
        try respondJSON(200, ["parts": described])
    }
}
