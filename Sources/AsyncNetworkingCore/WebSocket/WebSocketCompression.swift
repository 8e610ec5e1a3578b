/// What to offer for `permessage-deflate` (RFC 7692) in the opening handshake.
///
/// The default (``standard``) offers the extension with every parameter at the RFC's defaults:
/// 32 KiB windows both ways and context kept between messages, and says the client accepts a
/// smaller window of its own (`client_max_window_bits` without a value). Inflated messages are
/// bounded by ``WebSocketOptions/maximumMessageSize``: a message that inflates past it (a
/// compression bomb) fails the connection with 1009 once that many bytes came out, whatever its
/// compressed size.
public struct WebSocketCompression: Sendable, Hashable {
    /// The largest LZ77 window the client will compress with, as a power of two (9–15), sent as
    /// `client_max_window_bits=N`. `nil` (the default) offers the parameter without a value: the
    /// server may pick any window and the client uses 2^15 when it picks none.
    public var clientMaxWindowBits: Int?
    /// The largest window the server may compress with (8–15), sent as `server_max_window_bits=N`;
    /// `nil` (the default) does not ask for a limit.
    public var serverMaxWindowBits: Int?
    /// Asks that the client's compressor restart at each message (`client_no_context_takeover`);
    /// default `false`. The client always honours the server's request for it.
    public var clientNoContextTakeover: Bool
    /// Asks the server to restart its compressor at each message (`server_no_context_takeover`);
    /// default `false`.
    public var serverNoContextTakeover: Bool

    /// Creates an offer; every argument defaults to the RFC's defaults.
    public init(
        clientMaxWindowBits: Int? = nil, serverMaxWindowBits: Int? = nil,
        clientNoContextTakeover: Bool = false, serverNoContextTakeover: Bool = false
    ) {
        self.clientMaxWindowBits = clientMaxWindowBits
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverNoContextTakeover = serverNoContextTakeover
    }

    /// `permessage-deflate` with the RFC's defaults.
    public static let standard = WebSocketCompression()

    /// The `Sec-WebSocket-Extensions` value of this offer.
    var offer: String {
        var parts = ["permessage-deflate"]
        if clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if let bits = serverMaxWindowBits { parts.append("server_max_window_bits=\(bits)") }
        parts.append(clientMaxWindowBits.map { "client_max_window_bits=\($0)" } ?? "client_max_window_bits")
        return parts.joined(separator: "; ")
    }

    /// Whether the values are in the RFC's ranges (and zlib's: a raw deflate window is 9–15).
    var isValid: Bool {
        (clientMaxWindowBits.map { (9...15).contains($0) } ?? true) && (serverMaxWindowBits.map { (8...15).contains($0) } ?? true)
    }
}

/// The `permessage-deflate` parameters a server accepted.
struct PerMessageDeflateParameters: Sendable, Hashable {
    var clientMaxWindowBits = 15
    var serverMaxWindowBits = 15
    var clientNoContextTakeover = false
    var serverNoContextTakeover = false

    /// The parameters of the server's `permessage-deflate` response `parameters` (name and
    /// optional value pairs) to `offer`, or why they cannot be accepted (RFC 7692 §7.1).
    static func accepting(
        _ parameters: [(name: String, value: String?)], offer: WebSocketCompression
    ) -> Result<Self, WebSocketHandshakeError> {
        var result = Self()
        result.clientMaxWindowBits = offer.clientMaxWindowBits ?? 15
        result.clientNoContextTakeover = offer.clientNoContextTakeover
        var seen: Set<String> = []
        for (name, value) in parameters {
            let key = name.lowercased()
            guard seen.insert(key).inserted else { return .failure(.init("permessage-deflate parameter \(key) was repeated")) }
            switch key {
            case "server_no_context_takeover", "client_no_context_takeover":
                guard value == nil else { return .failure(.init("\(key) takes no value")) }
                if key == "server_no_context_takeover" { result.serverNoContextTakeover = true } else { result.clientNoContextTakeover = true }
            case "server_max_window_bits", "client_max_window_bits":
                // 1*DIGIT without a leading zero (RFC 7692 §7.1.2): no sign, and checked as text
                // before it is a number, so no digit string of any length can trap.
                guard let text = value.map({ $0.trimmingQuotes }), !text.isEmpty, text.first != "0",
                      text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                      let bits = Int(text), (8...15).contains(bits) else {
                    return .failure(.init("\(key) needs a value from 8 to 15"))
                }
                if key == "server_max_window_bits" {
                    if let asked = offer.serverMaxWindowBits, bits > asked {
                        return .failure(.init("server_max_window_bits=\(bits) is above the \(asked) offered"))
                    }
                    result.serverMaxWindowBits = bits
                } else {
                    if let offered = offer.clientMaxWindowBits, bits > offered {
                        return .failure(.init("client_max_window_bits=\(bits) is above the \(offered) offered"))
                    }
                    guard bits >= 9 else {
                        return .failure(.init("client_max_window_bits=8 cannot be honoured (zlib's raw deflate window is 9–15)"))
                    }
                    result.clientMaxWindowBits = bits
                }
            default:
                return .failure(.init("unknown permessage-deflate parameter \(key)"))
            }
        }
        return .success(result)
    }
}

extension String {
    fileprivate var trimmingQuotes: String {
        count >= 2 && hasPrefix("\"") && hasSuffix("\"") ? String(dropFirst().dropLast()) : self
    }
}
