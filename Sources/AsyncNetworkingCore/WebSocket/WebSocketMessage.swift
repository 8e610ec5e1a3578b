import Foundation

/// One complete WebSocket message, as ``WebSocket/messages`` yields it and ``WebSocket/send(_:)``
/// takes it. Fragments are joined (and inflated, with permessage-deflate) before a message is
/// yielded; text has been checked to be valid UTF-8.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message (opcode 1).
    case text(String)
    /// A binary message (opcode 2).
    case binary(Data)
}
