import Foundation

/// `/status/CODE`, `/basic-auth`, `/json`, `/text`, `/response-headers` and `/continue`.
extension Connection {
    /// The challenge sent with 401 responses.
    static let basicChallenge = ("WWW-Authenticate", "Basic realm=\"loopback\"")

    /// `/status/CODE[?header=Name:Value…][&noauth=1]`: that status with body `status CODE`
    /// (none for 1xx, 204, 304 and HEAD); 401 adds a Basic challenge unless `noauth`.
    func serveStatus(_ text: String) throws {
        guard let code = Int(text), (100...999).contains(code) else {
            return try respondText(400, "invalid status \(text)\n")
        }
        var headers: [(String, String)] = [("Content-Type", "text/plain; charset=utf-8")]
        for (name, value) in request.queryItems where name == "header" {
            guard let colon = value.firstIndex(of: ":") else { continue }
            let field = value[..<colon].trimmingCharacters(in: .whitespaces)
            guard !field.isEmpty else { continue }
            headers.append((field, value[value.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        if code == 401 && !request.queryFlag("noauth") { headers.append(Self.basicChallenge) }
        let bodiless = (100..<200).contains(code) || code == 204 || code == 304
        try respond(code, headers, text: bodiless ? "" : "status \(code)")
    }

    /// `/basic-auth/USER/PASS[?challenge=V…]`: 200 `{"authenticated": true, "user": USER}` when
    /// the request carries `Authorization: Basic base64(USER:PASS)`, else 401 with a challenge:
    /// `WWW-Authenticate: Basic realm="loopback"`, or one `WWW-Authenticate: V` field per
    /// `challenge` given (in order).
    func serveBasicAuth(user rawUser: String, password rawPassword: String) throws {
        let user = RequestHead.percentDecode(rawUser)
        let password = RequestHead.percentDecode(rawPassword)
        var authenticated = false
        if let authorization = request.header("Authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "basic",
               let decoded = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
               String(decoding: decoded, as: UTF8.self) == "\(user):\(password)" {
                authenticated = true
            }
        }
        if authenticated {
            try respondJSON(200, ["authenticated": true, "user": user])
        } else {
            let given = request.queryItems.filter { $0.0 == "challenge" }.map { ("WWW-Authenticate", $0.1) }
            try respondJSON(401, ["authenticated": false], headers: given.isEmpty ? [Self.basicChallenge] : given)
        }
    }

    /// `/json[?type=T]`: a fixed JSON document, `application/json; charset=utf-8` unless `type` overrides it.
    func serveJSON() throws {
        let type = request.query("type") ?? "application/json; charset=utf-8"
        try respond(200, [("Content-Type", type)], text: #"{"ok": true, "numbers": [1,2,3], "name": "loopback"}"#)
    }

    /// `/text[?charset=C]`: `héllo wörld` encoded in C (utf-8 by default; iso-8859-1 and utf-16
    /// with their usual aliases also work), labelled `text/plain; charset=C`.
    func serveText() throws {
        let charset = request.query("charset") ?? "utf-8"
        let encoding: String.Encoding? = switch charset.lowercased() {
        case "utf-8", "utf8": .utf8
        case "iso-8859-1", "iso8859-1", "latin1", "latin-1": .isoLatin1
        case "utf-16", "utf16": .utf16
        case "utf-16le": .utf16LittleEndian
        case "utf-16be": .utf16BigEndian
        case "us-ascii", "ascii": .ascii
        default: nil
        }
        guard let encoding, let data = "héllo wörld".data(using: encoding, allowLossyConversion: true) else {
            return try respondText(400, "unsupported charset \(charset)\n")
        }
        try respond(200, [("Content-Type", "text/plain; charset=\(charset)")], body: Array(data))
    }

    /// `/response-headers?Name=Value&…`: 200 `ok` with every query item as a response header
    /// (`Content-Type` defaults to text/plain; framing headers are ignored).
    func serveResponseHeaders() throws {
        let framing: Set<String> = ["content-length", "transfer-encoding", "connection"]
        var headers = request.queryItems.filter { !framing.contains($0.0.lowercased()) && !$0.0.isEmpty }
        if !headers.contains(where: { $0.0.lowercased() == "content-type" }) {
            headers.insert(("Content-Type", "text/plain; charset=utf-8"), at: 0)
        }
        try respond(200, headers, text: "ok")
    }

    /// `/continue`: an unsolicited `100 Continue`, then 200 `after continue`.
    func serveContinue() throws {
        try sendRaw("HTTP/1.1 100 Continue\r\n\r\n")
        try respondText(200, "after continue")
    }
}
