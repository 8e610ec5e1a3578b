/// `/bytes/N`, `/versioned/N`, `/stream/N` and `/gzip/N`: generated bodies of any size,
/// served from reusable buffers in bounded memory.
extension Connection {
    /// A generated representation that supports Range and If-Range.
    struct Representation {
        var length: Int
        var etag: String
        /// Epoch seconds of `Last-Modified`.
        var lastModified: Int
        /// `nil` for ``BytePattern``, else the ``SeededBytes`` seed.
        var seed: UInt64?
    }

    /// `Last-Modified` of `/bytes/N`: 2023-11-14T22:13:20Z.
    static let bytesLastModified = 1_700_000_000

    /// `/bytes/N[?seed=S][&etag=X][&norange=1][&drop=K]`.
    ///
    /// Every generated representation (this and `/versioned/N`) also takes two flags that make it a
    /// broken server for resume tests: `ignoreifrange=1` honours `Range` even when `If-Range` does
    /// not match (a 206 of a changed resource), and `rangeshift=K` labels a 206's `Content-Range`
    /// K bytes earlier than the bytes it actually sends.
    func serveBytes(length text: String) throws {
        guard let length = Int(text), length >= 0 else { return try respondText(400, "invalid length \(text)\n") }
        let seed = request.query("seed").flatMap { UInt64($0) }
        let etag = request.query("etag").map(Self.quotedETag) ?? "\"b-\(length)-\(seed.map(String.init) ?? "p")\""
        try serve(Representation(length: length, etag: etag, lastModified: Self.bytesLastModified, seed: seed))
    }

    /// `/versioned/N`: like `/bytes/N` with seed, ETag and Last-Modified derived from the resource version.
    func serveVersioned(length text: String) throws {
        guard let length = Int(text), length >= 0 else { return try respondText(400, "invalid length \(text)\n") }
        let version = core.resourceVersion
        let etag = request.query("etag").map(Self.quotedETag) ?? "\"v\(version)-\(length)\""
        let modified = max(0, Self.bytesLastModified + version * 3600)
        try serve(Representation(length: length, etag: etag, lastModified: modified, seed: UInt64(bitPattern: Int64(version))))
    }

    /// Quotes an `?etag=` override unless it already is an entity tag.
    static func quotedETag(_ value: String) -> String {
        value.hasPrefix("\"") || value.hasPrefix("W/\"") ? value : "\"\(value)\""
    }

    private func serve(_ representation: Representation) throws {
        let length = representation.length
        let rangeHeader = request.header("Range")
        let ignoreRange = request.queryFlag("norange")
        let ignoreIfRange = request.queryFlag("ignoreifrange")
        var outcome = ByteRange.Outcome.full
        if let rangeHeader, !ignoreRange {
            let validatorMatches = ignoreIfRange || request.header("If-Range").map {
                ByteRange.ifRangeMatches($0, etag: representation.etag, lastModified: representation.lastModified)
            } ?? true
            if validatorMatches { outcome = ByteRange.evaluate(rangeHeader, length: length) }
        }
        var headers = [
            ("Content-Type", "application/octet-stream"),
            ("ETag", representation.etag),
            ("Last-Modified", HTTPDate.format(epochSeconds: representation.lastModified)),
            ("Accept-Ranges", ignoreRange ? "none" : "bytes"),
        ]
        switch outcome {
        case .unsatisfiable:
            headers.append(("Content-Range", "bytes */\(length)"))
            try respond(416, headers, body: [])
        case .partial(let start, let end):
            let labelled = max(0, start - max(0, request.queryInt("rangeshift") ?? 0))
            headers.append(("Content-Range", "bytes \(labelled)-\(labelled + end - start)/\(length)"))
            try startResponse(206, headers, contentLength: end - start + 1)
            try writeGeneratedBody(offset: start, count: end - start + 1, seed: representation.seed)
        case .full:
            try startResponse(200, headers, contentLength: length)
            if rangeHeader == nil, let drop = request.queryInt("drop"), drop >= 0 {
                try writeGeneratedBody(offset: 0, count: min(drop, length), seed: representation.seed)
                try flush()
                disposition = .closeAbruptly
                return
            }
            try writeGeneratedBody(offset: 0, count: length, seed: representation.seed)
        }
    }

    /// `/stream/N[?chunk=K]`: N patterned bytes with chunked framing, K bytes per chunk (default 16384).
    func serveStream(length text: String) throws {
        guard let length = Int(text), length >= 0 else { return try respondText(400, "invalid length \(text)\n") }
        let chunk = max(1, request.queryInt("chunk") ?? 16_384)
        try startResponse(200, [("Content-Type", "application/octet-stream")], contentLength: nil)
        var offset = 0
        while offset < length && !response.suppressBody {
            let size = min(chunk, length - offset)
            try writeGeneratedChunk(offset: offset, count: size)
            offset += size
        }
        try finishBody()
    }

    /// `/gzip/N`: a gzip member that decompresses to N zero bytes.
    func serveGzip(length text: String) throws {
        guard let length = Int(text), length >= 0 else { return try respondText(400, "invalid length \(text)\n") }
        let headers = [("Content-Type", "application/octet-stream"), ("Content-Encoding", "gzip")]
        try startResponse(200, headers, contentLength: GzipZeros.compressedSize(count: length))
        guard !response.suppressBody else { return }
        try GzipZeros.write(count: length) { try writeBody($0) }
    }
}
