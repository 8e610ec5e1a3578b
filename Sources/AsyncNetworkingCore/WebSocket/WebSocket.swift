import Foundation

/// An open WebSocket connection (RFC 6455), made by ``SessionManager/webSocket(to:protocols:headers:options:)``.
///
/// ```swift
/// let socket = try await manager.webSocket(to: URL(string: "wss://example.com/chat")!, protocols: ["chat.v1"])
/// try await socket.send(.text("hello"))
/// for try await message in socket.messages {
///     if case .text(let text) = message { print(text) }
/// }
/// // The loop ends when the close handshake is done; socket.closeCode says why.
/// ```
///
/// - Reading: ``messages`` yields whole messages in order, one task at a time. When the reader
///   falls behind by ``WebSocketOptions/receiveBufferSize`` (messages counted by their bytes plus
///   128 each) the client stops reading the socket, which holds the peer back through TCP. Cancelling the reading task throws
///   ``NetworkingError/Kind/cancelled`` from the loop and closes the connection with 1001.
/// - Writing: ``send(_:)`` suspends while more than ``WebSocketOptions/sendBufferSize`` bytes are
///   waiting for the socket. Pings from the peer are answered automatically, their pongs sent
///   ahead of queued messages; past ``WebSocketOptions/sendBufferSize`` of pongs not yet written
///   the client stops reading, so a peer that pings and never reads is held back too.
/// - Closing: ``close(code:reason:)`` runs the closing handshake, bounded by
///   ``WebSocketOptions/closeTimeout``. A peer's close is echoed and ends ``messages``;
///   ``closeCode`` and ``closeReason`` then hold what it sent. A protocol violation by the peer
///   closes with 1002, 1007 or 1009 and throws ``NetworkingError/Kind/webSocketFailed(closeCode:)``
///   from ``messages``.
/// - Releasing the last reference to an open socket closes it with 1001.
///
/// All of it is safe to use from any task: the state is under one lock, shared with the
/// connection's I/O thread.
public final class WebSocket: Sendable {
    let channel: WebSocketChannel
    /// The subprotocol the server chose from those offered, or `nil` when it chose none.
    public let negotiatedProtocol: String?
    /// The extensions the server accepted, as it wrote them (for example
    /// `permessage-deflate; server_max_window_bits=10`); empty when none.
    public let negotiatedExtensions: [String]

    /// The `Set-Cookie` fields of the handshake's 101 (stored in the manager's jar).
    let handshakeSetCookies: [String]

    init(channel: WebSocketChannel, outcome: WebSocketHandshake.Outcome) {
        handshakeSetCookies = outcome.setCookies
        self.channel = channel
        negotiatedProtocol = outcome.subprotocol
        negotiatedExtensions = outcome.extensions
    }

    deinit { channel.abandon() }

    /// The messages the peer sends, in order, as an `AsyncSequence` for one task at a time.
    ///
    /// The sequence ends (`nil`) when the close handshake completes, whoever started it; it
    /// throws ``NetworkingError`` when the connection fails (`webSocketFailed(closeCode:)` for a
    /// protocol violation, `transport(...)` when the connection is lost or the close times out)
    /// or ``NetworkingError/Kind/cancelled`` when the reading task is cancelled — which also
    /// starts the close handshake with 1001.
    public var messages: WebSocketMessages { WebSocketMessages(socket: self) }

    /// Sends one message (a single frame, compressed when permessage-deflate was negotiated).
    ///
    /// Suspends while the bytes waiting for the socket are over
    /// ``WebSocketOptions/sendBufferSize``; returns once the message is queued (not when the peer
    /// has it). Throws ``NetworkingError/Kind/webSocketClosed`` once a close frame was sent or the
    /// connection ended; cancellation while suspended throws `.cancelled` and sends nothing.
    /// May be called from many tasks at once: the message is encoded (deflated, masked) outside
    /// the connection's lock, and frames are queued in the order the calls took their turn, so
    /// one task's messages go out in its order. A message whose turn comes after a close frame
    /// was queued is not sent (``NetworkingError/Kind/webSocketClosed``).
    public func send(_ message: WebSocketMessage) async throws(NetworkingError) {
        try await channel.send(message)
    }

    /// Sends a text message; see ``send(_:)``.
    public func send(text: String) async throws(NetworkingError) { try await channel.send(.text(text)) }

    /// Sends a binary message; see ``send(_:)``.
    public func send(data: Data) async throws(NetworkingError) { try await channel.send(.binary(data)) }

    /// Sends a ping and suspends until the peer's pong for it (or for a later ping) arrives.
    ///
    /// Throws ``NetworkingError/Kind/webSocketClosed`` (or the connection's failure) if the
    /// connection ends first; cancellation throws `.cancelled` (the ping stays sent).
    public func ping() async throws(NetworkingError) {
        try await channel.ping()
    }

    /// Closes the connection with the closing handshake: sends a close frame with `code` and
    /// `reason` (cut to 123 UTF-8 bytes), then suspends until the peer's close frame arrives and
    /// the connection is shut, or until ``WebSocketOptions/closeTimeout`` passes (the connection is
    /// then shut anyway and ``messages`` throws `.transport(.timedOut)`).
    ///
    /// - Parameters:
    ///   - code: default ``WebSocketCloseCode/normalClosure`` (1000); it must be sendable
    ///     (``WebSocketCloseCode/isSendable``), or this throws
    ///     ``NetworkingError/Kind/webSocketClosed`` without closing.
    ///   - reason: default empty.
    ///
    /// Calling it again, or after the peer closed, waits for the same end. Not cancellable: the
    /// wait is bounded by the close timeout.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async throws(NetworkingError) {
        guard code.isSendable else {
            throw NetworkingError(.webSocketClosed, "the close code \(code.rawValue) may not be sent (RFC 6455 §7.4)")
        }
        await channel.close(code: code, reason: reason)
    }

    /// The code of the peer's close frame once one arrived (``WebSocketCloseCode/noStatusReceived``
    /// when it carried none); `nil` before.
    public var closeCode: WebSocketCloseCode? { channel.state.withLock { $0.peerCloseCode } }

    /// The reason in the peer's close frame once one arrived; `nil` before.
    public var closeReason: String? { channel.state.withLock { $0.peerCloseReason } }
}

/// The messages of a ``WebSocket``: see ``WebSocket/messages``.
public struct WebSocketMessages: AsyncSequence, Sendable {
    /// A message.
    public typealias Element = WebSocketMessage
    /// The error the sequence throws.
    public typealias Failure = NetworkingError

    /// The socket, kept alive while its messages are read (releasing it would close it).
    let socket: WebSocket

    /// An iterator; iterate from one task at a time (a second concurrent reader gets
    /// ``NetworkingError/Kind/unsupportedOperation``).
    public func makeAsyncIterator() -> Iterator { Iterator(socket: socket) }

    /// Reads the next message; suspends until one arrives or the connection ends.
    public struct Iterator: AsyncIteratorProtocol {
        let socket: WebSocket
        private var channel: WebSocketChannel { socket.channel }

        /// The next message, or `nil` once the close handshake is done. Cancellation throws
        /// `.cancelled` and starts closing with 1001.
        public mutating func next() async throws(NetworkingError) -> WebSocketMessage? {
            try await channel.nextMessage()
        }

        /// The next message (see ``next()``).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkingError) -> WebSocketMessage? {
            try await channel.nextMessage()
        }
    }
}
