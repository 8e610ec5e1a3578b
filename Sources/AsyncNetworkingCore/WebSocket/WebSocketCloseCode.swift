/// A close status code (RFC 6455 §7.4), sent in a close frame and reported when the peer closes.
///
/// The named values are RFC 6455's and IANA's registry. Codes 3000–3999 are registered for
/// libraries and frameworks, 4000–4999 are private use. 1005 (no code), 1006 (abnormal closure)
/// and 1015 (TLS failure) are never sent on the wire; they only describe how a connection ended.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The numeric code.
    public let rawValue: UInt16

    /// Creates a close code from its number (any value; ``isSendable`` says whether it may be sent).
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection was fulfilled.
    public static let normalClosure = Self(rawValue: 1000)
    /// 1001: the endpoint is going away (a server shutting down, a client whose reading task was cancelled).
    public static let goingAway = Self(rawValue: 1001)
    /// 1002: the peer broke the protocol (reserved bits, unknown opcodes, bad framing).
    public static let protocolError = Self(rawValue: 1002)
    /// 1003: a data type the endpoint cannot accept.
    public static let unsupportedData = Self(rawValue: 1003)
    /// 1005: the peer's close frame carried no code (never sent).
    public static let noStatusReceived = Self(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure = Self(rawValue: 1006)
    /// 1007: a text message was not valid UTF-8 (or data did not match its type).
    public static let invalidFramePayloadData = Self(rawValue: 1007)
    /// 1008: a message violated the endpoint's policy.
    public static let policyViolation = Self(rawValue: 1008)
    /// 1009: a message was larger than the endpoint accepts (``WebSocketOptions/maximumMessageSize``).
    public static let messageTooBig = Self(rawValue: 1009)
    /// 1010: the client needed an extension the server did not negotiate.
    public static let mandatoryExtension = Self(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = Self(rawValue: 1011)

    /// Whether the code may appear in a close frame (RFC 6455 §7.4.1–7.4.2 and IANA's registry):
    /// 1000–1003, 1007–1014 and 3000–4999. A peer's close frame with any other code fails the
    /// connection with 1002.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    /// The number, with its name when it has one.
    public var description: String {
        let name: String? = switch rawValue {
        case 1000: "normalClosure"
        case 1001: "goingAway"
        case 1002: "protocolError"
        case 1003: "unsupportedData"
        case 1005: "noStatusReceived"
        case 1006: "abnormalClosure"
        case 1007: "invalidFramePayloadData"
        case 1008: "policyViolation"
        case 1009: "messageTooBig"
        case 1010: "mandatoryExtension"
        case 1011: "internalServerError"
        default: nil
        }
        return name.map { "\(rawValue) (\($0))" } ?? "\(rawValue)"
    }
}
