import Foundation

/// `/raw?b64=BYTES`: a response written byte for byte as the client asked, for tests of how a
/// client parses what servers may send (status lines, header lines holding control characters,
/// trailers). `BYTES` is base64url without padding (`-` and `_` for `+` and `/`). The whole request
/// is read first (so it is recorded); after the bytes the connection closes cleanly (FIN).
extension Connection {
    /// Serves `/raw`.
    func serveRaw() throws {
        guard let encoded = request.query("b64"), let bytes = Self.base64URLDecoded(encoded) else {
            return try respondText(400, "b64 must be base64url")
        }
        try finishRequest()
        try sendRaw(bytes)
        disposition = .closeAbruptly
    }

    /// Sends `bytes` immediately, outside any response framing.
    func sendRaw(_ bytes: Data) throws {
        try flush()
        let sent = bytes.withUnsafeBytes { Socket.sendAll(fd, $0) }
        if !sent { throw ConnectionError.peerClosed }
    }

    static func base64URLDecoded(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }
}
