/// Progress through the current response.
struct ResponseState {
    /// How the response body is delimited.
    enum Framing {
        case length(Int)
        case chunked
        /// HTTP/1.0 client and unknown length: the body ends when the connection closes.
        case untilClose
    }

    /// Whether the head has been queued.
    var started = false
    /// Whether the last byte has been queued (and the stats updated).
    var complete = false
    var framing = Framing.length(0)
    /// No body may be sent (HEAD, 1xx, 204, 304).
    var suppressBody = false
    /// Body bytes queued so far.
    var sent = 0
}

extension Connection {
    /// Whether the current request is HEAD.
    var isHead: Bool { request.method == "HEAD" }

    /// Starts a response: reads the rest of the request body, records the request, and queues
    /// the head. Adds `Server`, framing (`Content-Length`, or chunked when `contentLength` is
    /// `nil`), and `Connection` as needed.
    func startResponse(_ status: Int, _ headers: [(String, String)], contentLength: Int?) throws {
        try finishRequest()
        precondition(!response.started, "response already started")
        let noBodyStatus = (100..<200).contains(status) || status == 204 || status == 304
        response.started = true
        response.suppressBody = isHead || noBodyStatus
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        var hasServer = false
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
            if name.lowercased() == "server" { hasServer = true }
        }
        if !hasServer { head += "Server: LoopbackServer\r\n" }
        if let contentLength {
            response.framing = .length(contentLength)
            if !noBodyStatus { head += "Content-Length: \(contentLength)\r\n" }
        } else if request.isHTTP11 {
            response.framing = .chunked
            if !noBodyStatus { head += "Transfer-Encoding: chunked\r\n" }
        } else {
            response.framing = .untilClose
            keepAlive = false
        }
        if core.isStopping { keepAlive = false }
        if !keepAlive {
            head += "Connection: close\r\n"
        } else if !request.isHTTP11 {
            head += "Connection: keep-alive\r\n"
        }
        head += "\r\n"
        output.append(contentsOf: head.utf8)
        if response.suppressBody {
            try complete()
        } else if case .length(0) = response.framing {
            try complete()
        }
    }

    /// Queues body bytes (ignored for bodiless responses). With `Content-Length` framing, queuing
    /// the last byte completes the response.
    func writeBody(_ bytes: UnsafeRawBufferPointer) throws {
        guard !response.suppressBody, !response.complete, bytes.count > 0 else { return }
        switch response.framing {
        case .length(let total):
            let take = min(bytes.count, total - response.sent)
            response.sent += take
            if response.sent == total {
                try emit(UnsafeRawBufferPointer(rebasing: bytes[0..<take]), last: true)
            } else {
                try emit(bytes, last: false)
            }
        case .chunked:
            response.sent += bytes.count
            try emit(String(bytes.count, radix: 16) + "\r\n")
            try emit(bytes, last: false)
            try emit("\r\n")
        case .untilClose:
            response.sent += bytes.count
            try emit(bytes, last: false)
        }
    }

    /// Ends the body: the last chunk for chunked framing; for `Content-Length` framing with bytes
    /// missing, marks the connection for an abrupt close instead.
    func finishBody() throws {
        guard response.started, !response.complete else { return }
        switch response.framing {
        case .length(let total):
            if response.sent < total { disposition = .closeAbruptly }
        case .chunked:
            output.append(contentsOf: "0\r\n\r\n".utf8)
            try complete()
        case .untilClose:
            try complete()
        }
    }

    /// A whole response with a small in-memory body.
    func respond(_ status: Int, _ headers: [(String, String)], body: [UInt8]) throws {
        try startResponse(status, headers, contentLength: body.count)
        try body.withUnsafeBytes { try writeBody($0) }
    }

    /// A whole response with a UTF-8 text body.
    func respond(_ status: Int, _ headers: [(String, String)], text: String) throws {
        try respond(status, headers, body: Array(text.utf8))
    }

    /// A `text/plain; charset=utf-8` response.
    func respondText(_ status: Int, _ text: String, headers: [(String, String)] = []) throws {
        try respond(status, [("Content-Type", "text/plain; charset=utf-8")] + headers, text: text)
    }

    /// Sends raw bytes immediately, outside any response framing (interim and fault responses).
    func sendRaw(_ text: String) throws {
        try emit(text)
        try flush()
    }

    /// Sends every queued output byte.
    func flush() throws {
        guard !output.isEmpty else { return }
        let sent = output.withUnsafeBytes { Socket.sendAll(fd, $0) }
        output.removeAll(keepingCapacity: true)
        if !sent { throw ConnectionError.peerClosed }
    }

    /// Sends the patterned (`seed == nil`) or seeded body bytes `offset ..< offset + count`
    /// from a reusable buffer, in pieces of at most 256 KiB.
    func writeGeneratedBody(offset: Int, count: Int, seed: UInt64?) throws {
        guard !response.suppressBody else { return }
        let piece = BytePattern.writeChunk
        var position = offset
        let end = offset + count
        if seed != nil && scratch.count < piece { scratch = [UInt8](repeating: 0, count: piece) }
        while position < end {
            let size = min(piece, end - position)
            if let seed {
                scratch.withUnsafeMutableBytes { raw in
                    SeededBytes.fill(UnsafeMutableRawBufferPointer(rebasing: raw[0..<size]), seed: seed, offset: position)
                }
                try scratch.withUnsafeBytes { try writeBody(UnsafeRawBufferPointer(rebasing: $0[0..<size])) }
            } else {
                let phase = position % BytePattern.period
                try BytePattern.sharedBuffer.withUnsafeBytes { raw in
                    try writeBody(UnsafeRawBufferPointer(rebasing: raw[phase..<(phase + size)]))
                }
            }
            position += size
        }
    }

    /// Sends patterned bytes `offset ..< offset + count` as exactly one chunk of a chunked body.
    func writeGeneratedChunk(offset: Int, count: Int) throws {
        guard !response.suppressBody, count > 0 else { return }
        guard case .chunked = response.framing else { return try writeGeneratedBody(offset: offset, count: count, seed: nil) }
        try emit(String(count, radix: 16) + "\r\n")
        response.framing = .untilClose // the data of one chunk, written unframed
        defer { response.framing = .chunked }
        try writeGeneratedBody(offset: offset, count: count, seed: nil)
        try emit("\r\n")
    }

    /// Waits until the client closes the connection (throws ``ConnectionError/peerClosed``) or
    /// `stop()` begins (throws ``ConnectionError/stopped``).
    func holdUntilClosed() throws {
        try sleep(milliseconds: nil)
    }

    /// Marks the response complete in the stats, then sends what is queued.
    private func complete() throws {
        response.complete = true
        core.responseCompleting()
        try flush()
    }

    private func emit(_ text: String) throws {
        var text = text
        try text.withUTF8 { try emit(UnsafeRawBufferPointer($0), last: false) }
    }

    /// Queues bytes, coalescing small writes; large ones go straight to the socket.
    private func emit(_ bytes: UnsafeRawBufferPointer, last: Bool) throws {
        if output.count + bytes.count <= Self.bufferSize {
            output.append(contentsOf: bytes)
        } else {
            try flush()
            if bytes.count >= Self.bufferSize {
                if last {
                    response.complete = true
                    core.responseCompleting()
                }
                guard Socket.sendAll(fd, bytes) else { throw ConnectionError.peerClosed }
                return
            }
            output.append(contentsOf: bytes)
        }
        if last { try complete() }
    }

    /// The standard reason phrase for `status`.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 205: "Reset Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 416: "Range Not Satisfiable"
        case 418: "I'm a teapot"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
