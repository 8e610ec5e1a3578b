/// A violation of RFC 6455/7692 by the peer: the connection is failed with ``code`` (sent in our
/// close frame) and ``reason``.
struct WebSocketProtocolError: Error, Sendable, Hashable {
    var code: WebSocketCloseCode
    var reason: String

    static func protocolError(_ reason: String) -> Self { Self(code: .protocolError, reason: reason) }
    static func invalidData(_ reason: String) -> Self { Self(code: .invalidFramePayloadData, reason: reason) }
    static func tooBig(_ reason: String) -> Self { Self(code: .messageTooBig, reason: reason) }
}
