import Foundation

/// `/echo`, `/upload` and `/multipart`: routes that read the request body.
extension Connection {
    /// Bodies at least this large are not echoed back, only measured.
    static let echoBodyLimit = 1 << 20
    /// The largest multipart body `/multipart` buffers.
    static let multipartLimit = 256 << 20

    /// `/echo`: the request as JSON (method, path, query, lowercased headers, body length and
    /// checksum, and for bodies under 1 MiB the body as UTF-8 text or null, and as Base64).
    func serveEcho() throws {
        var kept: [UInt8] = []
        var keep = true
        try readBody { piece in
            guard keep else { return }
            if kept.count + piece.count < Self.echoBodyLimit {
                kept.append(contentsOf: piece)
            } else {
                keep = false
                kept = []
            }
        }
        var headers: [String: String] = [:]
        for (name, value) in request.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        var object: [String: Any] = [
            "method": request.method,
            "path": request.path,
            "query": request.queryDictionary,
            "headers": headers,
            "bodyLength": body.length,
            "bodyChecksum": String(body.hasher.value),
        ]
        if keep {
            object["body"] = String(bytes: kept, encoding: .utf8) ?? NSNull()
            object["bodyBase64"] = Data(kept).base64EncodedString()
        }
        try respondJSON(200, object)
    }

    /// `/upload`: streams the body (any size, bounded memory) and answers
    /// `{"bytes": n, "checksum": "<FNV-1a decimal>", "chunked": bool}`. `?pace=MS` sleeps MS
    /// milliseconds after each piece read (at most 100), so a client's upload stays in progress.
    func serveUpload() throws {
        let pace = min(max(request.queryInt("pace") ?? 0, 0), 100)
        try readBody { _ in
            if pace > 0 { usleep(UInt32(pace) * 1000) }
        }
        try respondJSON(200, [
            "bytes": body.length,
            "checksum": String(body.hasher.value),
            "chunked": body.isChunked,
        ])
    }

    /// `/multipart`: parses a `multipart/form-data` body and describes each part as JSON;
    /// 400 with a text reason when the body or content type is malformed.
    func serveMultipart() throws {
        guard let body = try readMultipartBody() else { return }
        let (bytes, parts) = (body.bytes, body.parts)
        let described: [[String: Any]] = parts.map { part in
            let content = bytes[part.content]
            return [
                "name": part.name,
                "filename": part.filename ?? NSNull(),
                "contentType": part.contentType ?? NSNull(),
                "size": content.count,
                "checksum": String(Checksum.fnv1a64(content)),
                "value": Self.textValue(content),
            ] as [String: Any]
        }
        try respondJSON(200, ["parts": described])
    }

    /// Reads a `multipart/form-data` body whole: its boundary, its bytes and its parts; `nil` once
    /// a 400 with the reason has been sent (no multipart content type, or a malformed body).
    func readMultipartBody() throws -> (boundary: String, bytes: [UInt8], parts: [Multipart.Part])? {
        guard let contentType = request.header("Content-Type"),
              let boundary = Multipart.boundary(fromContentType: contentType)
        else {
            try finishRequest()
            try respondText(400, "malformed multipart body: missing multipart Content-Type with a boundary\n")
            return nil
        }
        let bytes = try readWholeBody(limit: Self.multipartLimit)
        do {
            return (boundary, bytes, try Multipart.parse(bytes, boundary: boundary))
        } catch {
            try respondText(400, "malformed multipart body: \(error.reason)\n")
            return nil
        }
    }

    /// A part's content as a JSON value: its text when it is UTF-8 and under 64 KiB, else null.
    static func textValue(_ content: ArraySlice<UInt8>) -> Any {
        guard content.count < 64 * 1024, let text = String(bytes: content, encoding: .utf8) else { return NSNull() }
        return text
    }

    /// A JSON response (`application/json`) with sorted keys.
    func respondJSON(_ status: Int, _ object: [String: Any], headers: [(String, String)] = []) throws {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        try respond(status, [("Content-Type", "application/json")] + headers, body: Array(data))
    }
}
