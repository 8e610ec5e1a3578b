/// How a transfer's event stream bounds its memory when the consumer reads slower than the network
/// delivers.
///
/// URLSession on Linux has no backpressure (it pushes data as fast as it arrives, and `suspend()`
/// restarts a transfer from byte 0), so the stream bounds memory itself: at most ``highWaterMark``
/// bytes of body are held in memory. Past that, with ``Overflow-swift.enum/spillToDisk``, further
/// chunks are appended to an anonymous temporary file (created and immediately unlinked, so it
/// disappears on every path, even a crash) and read back in order; spilling stops once the consumer
/// has drained memory below ``lowWaterMark``. With ``Overflow-swift.enum/fail`` the transfer ends
/// with ``NetworkingError/Kind/bufferLimitExceeded(limit:)`` instead.
///
/// The bound per transport and protocol:
/// - **curl, HTTP/1.1** (every transfer with an event stream or a body sequence): the transport
///   pauses the transfer once it is three quarters of ``highWaterMark`` ahead of the consumer, so
///   at most that much (3 MiB by default) plus libcurl's 16 KiB buffer is held, and nothing spills.
/// - **curl, HTTP/2**: never used for such transfers — libcurl keeps up to its fixed stream window
///   (32 MiB in 7.88) of a paused HTTP/2 stream, so they run over HTTP/1.1 even where the server
///   offers HTTP/2 (see <doc:Transports>).
/// - **URLSession**: ``highWaterMark`` in memory, the rest per ``overflow``.
public struct BufferPolicy: Sendable, Hashable {
    /// What to do when the in-memory buffer would pass ``highWaterMark``.
    public enum Overflow: Sendable, Hashable {
        /// Spill further chunks to a temporary file (the default).
        case spillToDisk
        /// End the transfer with ``NetworkingError/Kind/bufferLimitExceeded(limit:)``.
        case fail
    }

    /// Bytes of body held in memory before ``overflow`` applies. Default 4 MiB.
    public var highWaterMark: Int
    /// Spilling stops when the in-memory buffer drains to this many bytes. Default 1 MiB.
    public var lowWaterMark: Int
    /// What happens past ``highWaterMark``. Default ``Overflow-swift.enum/spillToDisk``.
    public var overflow: Overflow
    /// Largest chunk read back from the spill file as one ``TransferEvent/data(_:)``. Default 64 KiB.
    public var spillReadSize: Int

    /// Creates a policy; `lowWaterMark` is clamped to `0...highWaterMark`.
    public init(
        highWaterMark: Int = 4 << 20,
        lowWaterMark: Int = 1 << 20,
        overflow: Overflow = .spillToDisk,
        spillReadSize: Int = 64 << 10
    ) {
        self.highWaterMark = max(1, highWaterMark)
        self.lowWaterMark = min(max(0, lowWaterMark), self.highWaterMark)
        self.overflow = overflow
        self.spillReadSize = max(1, spillReadSize)
    }

    /// 4 MiB in memory, then spill to disk.
    public static let `default` = BufferPolicy()
}
