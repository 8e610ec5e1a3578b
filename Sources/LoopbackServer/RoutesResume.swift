import Foundation

/// `/resume/N`: a generated representation whose validators a resume test chooses, to check that a
/// download appends a 206 only when it provably continues the bytes on disk (issue 20, item 9).
///
/// Query (all optional):
/// - `etag=weak|strong|same|none` (default `strong`): `W/"wV"`, `"sV"`, `"same"` for every
///   version, or no `ETag`; V is the ``LoopbackServer/resourceVersion``.
/// - `lm=fixed|versioned|none` (default `versioned`): `Last-Modified` fixed, one hour later per
///   version, or absent.
/// - `grow=K`: the representation is `N + V × K` bytes long (a bump changes its complete length).
/// - `drop=K`: the first request for this exact target on this server (later ones are served
///   whole) gets the head and K bytes, then the connection is cut.
/// - `ignoreifrange=1`: `Range` is honoured whatever `If-Range` says (a 206 of a changed resource).
/// - `bare206=1`: a 206 carries no `ETag` and no `Last-Modified`.
/// - `norange=1`: `Range` is ignored: the answer is always a 200 with the whole body.
///
/// The body is ``SeededBytes`` with seed V. `If-Range` matching is RFC 9110 §13.1.5: an entity
/// tag compares strongly (a weak one never matches), a date must equal `Last-Modified`.
extension Connection {
    /// The `port target` pairs whose `drop=K` was already used.
    private static let resumeDrops = SanitizedMutex<Set<String>>([])

    func serveResume(length text: String) throws {
        guard let base = Int(text), base >= 0 else { return try respondText(400, "invalid length \(text)\n") }
        let version = core.resourceVersion
        let length = base + version * max(0, request.queryInt("grow") ?? 0)
        let etag: String? = switch request.query("etag") ?? "strong" {
        case "weak": "W/\"w\(version)\""
        case "same": "\"same\""
        case "none": nil
        default: "\"s\(version)\""
        }
        let modified: Int? = switch request.query("lm") ?? "versioned" {
        case "fixed": Self.bytesLastModified
        case "none": nil
        default: Self.bytesLastModified + version * 3600
        }
        var validators: [(String, String)] = []
        if let etag { validators.append(("ETag", etag)) }
        if let modified { validators.append(("Last-Modified", HTTPDate.format(epochSeconds: modified))) }
        let seed = UInt64(bitPattern: Int64(version))
        var outcome = ByteRange.Outcome.full
        if let range = request.header("Range"), !request.queryFlag("norange") {
            let matches = request.queryFlag("ignoreifrange") || request.header("If-Range").map {
                Self.resumeIfRangeMatches($0, etag: etag, lastModified: modified)
            } ?? true
            if matches { outcome = ByteRange.evaluate(range, length: length) }
        }
        var headers = [("Content-Type", "application/octet-stream"), ("Accept-Ranges", "bytes")]
        switch outcome {
        case .unsatisfiable:
            try respond(416, headers + [("Content-Range", "bytes */\(length)")], body: [])
        case .partial(let start, let end):
            if !request.queryFlag("bare206") { headers += validators }
            headers.append(("Content-Range", "bytes \(start)-\(end)/\(length)"))
            try startResponse(206, headers, contentLength: end - start + 1)
            try writeGeneratedBody(offset: start, count: end - start + 1, seed: seed)
        case .full:
            try startResponse(200, headers + validators, contentLength: length)
            if let drop = request.queryInt("drop"), drop >= 0,
               Self.resumeDrops.withLock({ $0.insert("\(core.port) \(request.target)").inserted }) {
                try writeGeneratedBody(offset: 0, count: min(drop, length), seed: seed)
                try flush()
                disposition = .closeAbruptly
                return
            }
            try writeGeneratedBody(offset: 0, count: length, seed: seed)
        }
    }

    /// RFC 9110 §13.1.5: a strong comparison for an entity tag, equality for a date.
    static func resumeIfRangeMatches(_ value: String, etag: String?, lastModified: Int?) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("W/") { return false }
        if trimmed.hasPrefix("\"") { return etag.map { !$0.hasPrefix("W/") && $0 == trimmed } ?? false }
        return lastModified.map { HTTPDate.parse(trimmed) == $0 } ?? false
    }
}
