import Foundation

/// `/cache/NAME`: a resource with the caching header fields the query asks for, answering
/// conditional requests, for HTTP cache tests. Every request is recorded (``LoopbackServer/requests``),
/// so a test counts what reached the server and reads the conditional header fields it carried.
///
/// Query items (all optional; times are signed offsets in seconds from the server's clock):
/// - `cc=V`: `Cache-Control: V`.
/// - `etag=T`: `ETag: "T"` (quoted unless it already is an entity tag); `{v}` in `T` is replaced
///   by ``LoopbackServer/resourceVersion``, so bumping it changes the representation.
/// - `lm=S`: `Last-Modified` at now + S (e.g. `-3600`); `lm=@E` at E seconds since 1970 (stable
///   across requests, for `If-Modified-Since` tests).
/// - `expires=S`: `Expires` at now + S; `expires=bad` sends `Expires: 0` (invalid, so expired).
/// - `date=S`: `Date` at now + S (default 0); `nodate=1` sends no `Date`.
/// - `age=N`: `Age: N`.
/// - `vary=F`: `Vary: F`; the body then echoes each named request field.
/// - `size=N`: the body padded with `.` to N bytes (at least the text).
/// - `status=C`: the status of a full response (default 200).
/// - `nm304=0`: never answer `304` (a server that ignores conditions).
/// - `cookie=V`: `Set-Cookie: V-K` and `Set-Cookie2: V-K` (K as in `X-Hit`), on full responses and `304`s.
/// - `hop=1`: fields a cache must not store: `Connection: X-Hop-Field`, `X-Hop-Field: K`,
///   `Keep-Alive: timeout=30`, `Proxy-Authenticate: Basic realm="proxy"`, `Proxy-Authentication-Info: nextnonce="K"`.
///
/// `If-None-Match` matching the current `ETag` (weak comparison, or `*`) — else, without
/// `If-None-Match`, `If-Modified-Since` at or after `Last-Modified` — gets `304 Not Modified` with
/// the same header fields and no body. Every response carries `X-Hit: K`, K being how many
/// requests for this path the server has received (this one included), and the body of a full
/// response starts with `NAME #K`.
extension Connection {
    func serveCache(name: String) throws {
        let now = Int(Date().timeIntervalSince1970)
        // The log records a request when its response starts, so this one is not in it yet.
        let hits = core.requests.reduce(1) { $0 + ($1.path == request.path ? 1 : 0) }
        var headers: [(String, String)] = [("Content-Type", "text/plain; charset=utf-8"), ("X-Hit", String(hits))]
        if !request.queryFlag("nodate") {
            headers.append(("Date", HTTPDate.format(epochSeconds: max(0, now + (request.queryInt("date") ?? 0)))))
        }
        if let cc = request.query("cc") { headers.append(("Cache-Control", cc)) }
        let etag = request.query("etag").map {
            Self.quotedETag($0.replacingOccurrences(of: "{v}", with: String(core.resourceVersion)))
        }
        if let etag { headers.append(("ETag", etag)) }
        let lastModified = request.query("lm").flatMap { value in
            value.hasPrefix("@") ? Int(value.dropFirst()) : Int(value).map { now + $0 }
        }.map { max(0, $0) }
        if let lastModified { headers.append(("Last-Modified", HTTPDate.format(epochSeconds: lastModified))) }
        if let expires = request.query("expires") {
            headers.append(("Expires", Int(expires).map { HTTPDate.format(epochSeconds: max(0, now + $0)) } ?? "0"))
        }
        if let age = request.query("age") { headers.append(("Age", age)) }
        if let cookie = request.query("cookie") {
            headers += [("Set-Cookie", "\(cookie)-\(hits)"), ("Set-Cookie2", "\(cookie)-\(hits)")]
        }
        if request.queryFlag("hop") {
            headers += [
                ("Connection", "X-Hop-Field"), ("X-Hop-Field", String(hits)), ("Keep-Alive", "timeout=30"),
                ("Proxy-Authenticate", "Basic realm=\"proxy\""), ("Proxy-Authentication-Info", "nextnonce=\"\(hits)\""),
            ]
        }
        let vary = request.query("vary")
        if let vary { headers.append(("Vary", vary)) }

        if request.query("nm304") != "0", notModified(etag: etag, lastModified: lastModified) {
            return try respond(304, headers, body: [])
        }
        var text = "\(name) #\(hits)"
        for field in (vary ?? "").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !field.isEmpty {
            text += "\n\(field): \(request.header(field) ?? "-")"
        }
        var body = Array(text.utf8)
        if let size = request.queryInt("size"), size > body.count {
            body += [UInt8](repeating: UInt8(ascii: "."), count: size - body.count)
        }
        try respond(request.queryInt("status") ?? 200, headers, body: body)
    }

    /// Whether the request's conditions say the client's copy is current.
    private func notModified(etag: String?, lastModified: Int?) -> Bool {
        if let ifNoneMatch = request.header("If-None-Match") {
            guard let etag else { return false }
            func opaque(_ tag: Substring) -> String {
                let trimmed = tag.trimmingCharacters(in: .whitespaces)
                return trimmed.hasPrefix("W/") ? String(trimmed.dropFirst(2)) : trimmed
            }
            return ifNoneMatch.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "*" || opaque($0) == opaque(Substring(etag)) }
        }
        if let since = request.header("If-Modified-Since").flatMap({ HTTPDate.parse($0) }), let lastModified {
            return lastModified <= since
        }
        return false
    }
}
