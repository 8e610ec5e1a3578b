/// Progress through the current request's body.
struct BodyState {
    /// How the body is delimited.
    var framing: RequestHead.BodyFraming = .none
    /// Bytes still to read for `Content-Length` framing.
    var remaining = 0
    /// The decoder for chunked framing.
    var decoder = ChunkedDecoder()
    /// Whether the whole body has been read.
    var done = true
    /// Body bytes read so far (after removing chunked framing).
    var length = 0
    /// FNV-1a of the body bytes read so far.
    var hasher = FNV1a64()

    init() {}

    init(framing: RequestHead.BodyFraming) {
        self.framing = framing
        switch framing {
        case .none:
            done = true
        case .length(let count):
            remaining = count
            done = count == 0
        case .chunked:
            done = false
        }
    }

    /// Whether the body is chunked.
    var isChunked: Bool { framing == .chunked }
}

extension Connection {
    /// Streams the rest of the request body through `sink` in pieces (slices of the input buffer,
    /// valid only during the call), hashing it on the way; leftover bytes stay buffered for the
    /// next request. Memory stays bounded whatever the body size.
    ///
    /// - Throws: ``ConnectionError/peerClosed`` if the client closes early,
    ///   ``ConnectionError/badRequest(_:)`` for malformed chunked framing, or what `sink` throws.
    func readBody(_ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        while !body.done {
            if readIndex == writeIndex {
                guard try fill() > 0 else { throw ConnectionError.peerClosed }
            }
            let start = readIndex
            let end = writeIndex
            let consumed = try input.withUnsafeBytes { raw in
                let available = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                if body.isChunked {
                    // Work on copies: the decoder's closure must not access `body` while it is being mutated.
                    var decoder = body.decoder
                    var hasher = body.hasher
                    var length = body.length
                    defer {
                        body.decoder = decoder
                        body.hasher = hasher
                        body.length = length
                    }
                    do {
                        return try decoder.decode(available) { piece in
                            hasher.update(piece)
                            length += piece.count
                            try sink(piece)
                        }
                    } catch let error as ChunkedDecoder.MalformedError {
                        throw ConnectionError.badRequest(error.reason)
                    }
                } else {
                    let take = min(body.remaining, available.count)
                    let piece = UnsafeRawBufferPointer(rebasing: available[0..<take])
                    body.hasher.update(piece)
                    body.length += take
                    body.remaining -= take
                    try sink(piece)
                    return take
                }
            }
            readIndex += consumed
            body.done = body.isChunked ? body.decoder.isFinished : body.remaining == 0
        }
    }

    /// Reads the whole remaining body into memory.
    ///
    /// - Throws: ``ConnectionError/badRequest(_:)`` once more than `limit` bytes arrive.
    func readWholeBody(limit: Int) throws -> [UInt8] {
        var bytes: [UInt8] = []
        if case .length(let count) = body.framing { bytes.reserveCapacity(min(count, limit)) }
        try readBody { piece in
            guard bytes.count + piece.count <= limit else {
                throw ConnectionError.badRequest("body larger than \(limit) bytes")
            }
            bytes.append(contentsOf: piece)
        }
        return bytes
    }

    /// Reads and discards any unread body, then records the request in the log (once).
    /// Called before the first response byte is sent, so the log is complete before any
    /// client can see a response.
    func finishRequest() throws {
        guard !recorded else { return }
        if !body.done { try readBody { _ in } }
        record()
    }

    /// Records the request in the log (once), with as much of the body as was read.
    func record() {
        guard !recorded else { return }
        recorded = true
        core.record(
            RecordedRequest(
                method: request.method, target: request.target, path: request.path,
                query: request.queryDictionary, queryItems: request.queryItems, headers: request.headers,
                httpVersion: request.versionString, connectionID: id,
                bodyLength: body.length, bodyChecksum: body.hasher.value
            )
        )
    }
}
