import Foundation

/// Why a server's answer to the opening handshake was refused.
struct WebSocketHandshakeError: Error, Sendable, Hashable {
    var message: String
    var status: Int?
    /// A refusing answer's `WWW-Authenticate` value (a 401 a credential might answer).
    var challenge: String?

    init(_ message: String, status: Int? = nil, challenge: String? = nil) {
        self.message = message
        self.status = status
        self.challenge = challenge
    }
}

/// The opening handshake (RFC 6455 §4.1–4.2): the client's `GET` with `Upgrade: websocket` and a
/// fresh `Sec-WebSocket-Key`, and the checks on the server's `101` answer.
package struct WebSocketHandshake: Sendable {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The request target (path and query) and `Host` value.
    var target: String
    var host: String
    /// Subprotocols offered, in order of preference.
    var protocols: [String]
    /// Extra header fields (never the handshake's own: those are refused before sending).
    var headers: [(name: String, value: String)]
    var compression: WebSocketCompression?
    /// The base64 of 16 random bytes.
    let key: String

    init(
        url: URL, protocols: [String], headers: [(name: String, value: String)], compression: WebSocketCompression?,
        key: String = WebSocketHandshake.freshKey()
    ) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery
        target = (path.isEmpty ? "/" : path) + (query.map { "?\($0)" } ?? "")
        let secure = ["wss", "https"].contains(url.scheme?.lowercased() ?? "")
        var hostName = url.host ?? ""
        if hostName.contains(":"), !hostName.hasPrefix("[") { hostName = "[\(hostName)]" } // IPv6 literal
        if let port = url.port, port != (secure ? 443 : 80) { hostName += ":\(port)" }
        host = hostName
        self.protocols = protocols
        self.headers = headers
        self.compression = compression
        self.key = key
    }

    /// A new `Sec-WebSocket-Key`: 16 random bytes, base64.
    static func freshKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
    }

    /// The `Sec-WebSocket-Accept` a server must answer to `key`: base64(SHA-1(key + GUID)).
    static func acceptValue(for key: String) -> String {
        Data(SHA1.digest(Array((key + guid).utf8))).base64EncodedString()
    }

    /// Header names a caller may not set: the handshake owns them.
    package static let reservedHeaderNames: Set<String> = [
        "host", "upgrade", "connection", "sec-websocket-key", "sec-websocket-version",
        "sec-websocket-protocol", "sec-websocket-extensions", "sec-websocket-accept", "content-length",
        "transfer-encoding",
    ]

    /// The request's bytes.
    var requestBytes: [UInt8] {
        var lines = [
            "GET \(target) HTTP/1.1", "Host: \(host)", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13",
        ]
        if !protocols.isEmpty { lines.append("Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))") }
        if let compression { lines.append("Sec-WebSocket-Extensions: \(compression.offer)") }
        for (name, value) in headers { lines.append("\(name): \(value)") }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// What an accepted handshake negotiated.
    struct Outcome: Sendable, Hashable {
        var status: Int
        var headers: [String: String]
        var subprotocol: String?
        var extensions: [String]
        var deflate: PerMessageDeflateParameters?
        /// The `Set-Cookie` fields of the 101, one per field (for the manager's cookie jar).
        var setCookies: [String] = []
    }

    /// Checks a response head (the bytes before the blank line, without it).
    func validate(head: [UInt8]) -> Result<Outcome, WebSocketHandshakeError> {
        guard let text = String(validating: head, as: UTF8.self) else { return .failure(.init("the response head is not UTF-8")) }
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let statusParts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            return .failure(.init("the response's status line is malformed: \(statusLine.prefix(80))"))
        }
        var fields: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return .failure(.init("a response header line has no colon", status: status)) }
            fields.append((line[..<colon].trimmingCharacters(in: .whitespaces).lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var headers: [String: String] = [:]
        for (name, value) in fields { headers[name] = headers[name].map { "\($0), \(value)" } ?? value }
        guard status == 101 else {
            let what = (300..<400).contains(status) ? " (a redirect: WebSocket handshakes follow none)" : ""
            return .failure(.init(
                "the server answered \(status) instead of 101 Switching Protocols\(what)", status: status,
                challenge: headers["www-authenticate"]
            ))
        }
        guard headers["upgrade"]?.lowercased() == "websocket" else {
            return .failure(.init("the response's Upgrade field is not websocket", status: status))
        }
        guard let connection = headers["connection"],
              connection.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "upgrade" }) else {
            return .failure(.init("the response's Connection field has no upgrade token", status: status))
        }
        guard headers["sec-websocket-accept"] == Self.acceptValue(for: key) else {
            return .failure(.init("Sec-WebSocket-Accept does not match the key sent", status: status))
        }
        var subprotocol: String?
        if let value = headers["sec-websocket-protocol"] {
            guard protocols.contains(value) else {
                return .failure(.init("the server chose the subprotocol \(value.prefix(60)), which was not offered", status: status))
            }
            subprotocol = value
        }
        var extensions: [String] = []
        var deflate: PerMessageDeflateParameters?
        if let value = headers["sec-websocket-extensions"] {
            for item in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                // The name is what precedes the first `;`: an item such as `;` or `;permessage-deflate`
                // has none (and names no extension offered); empty parameters are skipped.
                let parts = item.split(separator: ";", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                let name = parts.first ?? ""
                let parameterTexts = parts.dropFirst().filter { !$0.isEmpty }
                guard name.lowercased() == "permessage-deflate", let offer = compression else {
                    return .failure(.init("the server accepted the extension \(name.prefix(60)), which was not offered", status: status))
                }
                guard deflate == nil else { return .failure(.init("permessage-deflate was accepted twice", status: status)) }
                let parameters: [(name: String, value: String?)] = parameterTexts.map { part in
                    guard let equals = part.firstIndex(of: "=") else { return (part, nil) }
                    return (part[..<equals].trimmingCharacters(in: .whitespaces), part[part.index(after: equals)...].trimmingCharacters(in: .whitespaces))
                }
                switch PerMessageDeflateParameters.accepting(parameters, offer: offer) {
                case .success(let accepted): deflate = accepted
                case .failure(var error):
                    error.status = status
                    return .failure(error)
                }
                extensions.append(item)
            }
        }
        let setCookies = fields.filter { $0.0 == "set-cookie" }.map(\.1)
        return .success(Outcome(
            status: status, headers: headers, subprotocol: subprotocol, extensions: extensions, deflate: deflate,
            setCookies: setCookies
        ))
    }

    /// The index just past the blank line ending a response head in `bytes`, or `nil`.
    static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 0x0A && bytes[index - 1] == 0x0D && bytes[index - 2] == 0x0A && bytes[index - 3] == 0x0D {
            return index + 1
        }
        return nil
    }
}
