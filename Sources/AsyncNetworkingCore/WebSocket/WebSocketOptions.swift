/// Limits and choices for one WebSocket connection (``SessionManager/webSocket(to:protocols:headers:options:)``).
///
/// Memory is bounded by these numbers whatever the peer or the reader does: at most
/// ``maximumMessageSize`` bytes for the message being received, at most about
/// ``receiveBufferSize`` of whole messages waiting for the reader, counted by what they cost
/// (their bytes plus 128 bytes each: a flood of empty messages fills it too; past it the client
/// stops reading from the socket, so the peer is held back by TCP), at most about
/// ``sendBufferSize`` bytes plus one message waiting to be written, and at most about
/// ``sendBufferSize`` of pongs owed to the peer (past it the client stops reading, so a peer that
/// pings and never reads is held back by TCP).
public struct WebSocketOptions: Sendable, Hashable {
    /// The largest message accepted, after reassembly and inflation; a larger one closes the
    /// connection with 1009. Default 16 MiB.
    public var maximumMessageSize: Int
    /// What received messages queued for the reader may cost before the client stops reading from
    /// the socket: their bytes plus 128 bytes each. Default 4 MiB.
    public var receiveBufferSize: Int
    /// Bytes of frames queued for the socket (sends being compressed included) above which
    /// ``WebSocket/send(_:)`` suspends until they drain; also the bytes of pongs owed to the peer
    /// above which the client stops reading the socket. Default 1 MiB.
    public var sendBufferSize: Int
    /// `permessage-deflate` to offer, or `nil` (the default) to offer no compression.
    public var compression: WebSocketCompression?
    /// How long connecting, TLS and the opening handshake may take together. Default 30 s.
    public var handshakeTimeout: Duration
    /// How long ``WebSocket/close(code:reason:)`` (and a cancelled reader) wait for the peer's
    /// close frame before closing the connection anyway. Default 10 s.
    public var closeTimeout: Duration

    /// Creates options; every argument has the default documented on its property.
    public init(
        maximumMessageSize: Int = 16 << 20, receiveBufferSize: Int = 4 << 20, sendBufferSize: Int = 1 << 20,
        compression: WebSocketCompression? = nil, handshakeTimeout: Duration = .seconds(30), closeTimeout: Duration = .seconds(10)
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.receiveBufferSize = receiveBufferSize
        self.sendBufferSize = sendBufferSize
        self.compression = compression
        self.handshakeTimeout = handshakeTimeout
        self.closeTimeout = closeTimeout
    }
}
