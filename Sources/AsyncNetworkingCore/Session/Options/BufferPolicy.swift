/// How a transfer's event stream bounds its memory when the consumer reads slower than the network
/// delivers.
///
/// URLSession on Linux has no backpressure (it pushes data as fast as it arrives, and `suspend()`
/// restarts a transfer from byte 0), so the stream bounds memory itself: at most ``highWaterMark``
/// bytes of body are held in memory. What they cost stays close to their bytes however small the
/// chunks: once 64 chunks wait for the consumer, a new chunk is joined to the last waiting one
/// (up to 16 KiB), so a body of 1-byte chunks does not cost a queued event (about 300 bytes) per
/// byte. A consumer that keeps up gets the chunks as they came. Past that, with ``Overflow-swift.enum/spillToDisk``, further
/// chunks are appended to an anonymous temporary file (created and immediately unlinked, so it
/// disappears on every path, even a crash) and read back in order; spilling stops once the consumer
/// has drained memory below ``lowWaterMark``. With ``Overflow-swift.enum/fail`` the transfer ends
/// with ``NetworkingError/Kind/bufferLimitExceeded(limit:)`` instead.
///
/// The bound per transport and protocol, and which transports reach the high-water mark at all:
/// - **curl, HTTP/1.1** (every transfer with an event stream, a body sequence or a download) has
///   flow control: the transfer's receive window is three quarters of ``highWaterMark`` (at least
///   16 KiB) and one write from libcurl adds at most 16 KiB, so the transfer pauses and the server
///   is held back before the buffer fills — at most that much (3 MiB by default) is held. With a
///   ``highWaterMark`` of 64 KiB or more nothing spills and ``Overflow-swift.enum/fail`` never
///   fires there; a slow consumer just slows the transfer. Below 64 KiB the window plus one write
///   can pass the mark, and the overflow applies.
/// - **curl, HTTP/2**: with libcurl 7.88 never used for such transfers by default
///   (``HTTP2Options/PausableTransfers-swift.enum/automatic``): libcurl 7.88 grants each HTTP/2
///   stream a fixed 32 MiB window that a pause does not take back, so a paused stream would keep
///   up to 32 MiB inside libcurl (from libcurl 8.1 they run over HTTP/2 with their window). With
///   ``HTTP2Options/PausableTransfers-swift.enum/http2`` they run as HTTP/2 streams that are never
///   paused for their consumer: the data is pushed as it arrives, as on URLSession below —
///   ``highWaterMark`` in memory, then spill or fail — and the server is not held back. Bodies
///   collected whole keep HTTP/2 either way; the event stream of an awaiting ``HTTPClient`` call,
///   which collects its body, is held in memory whatever this policy says.
/// - **URLSession** (the Apple default; selectable on Linux) and managers made with
///   ``SessionManager/init(stubs:configuration:maxConcurrentTransfers:)`` (which run on it) push
///   data as it arrives: ``highWaterMark`` in memory, then ``Overflow-swift.enum/spillToDisk``
///   spills and ``Overflow-swift.enum/fail`` ends the transfer.
public struct BufferPolicy: Sendable, Hashable {
    /// What to do when the in-memory buffer would pass ``highWaterMark``.
    public enum Overflow: Sendable, Hashable {
        /// Spill further chunks to a temporary file (the default).
        case spillToDisk
        /// End the transfer with ``NetworkingError/Kind/bufferLimitExceeded(limit:)``.
        ///
        /// Fires only where data is pushed regardless of the consumer: the URLSession transport
        /// and stubbed managers. On the curl transport flow control holds the server back first,
        /// so with a ``BufferPolicy/highWaterMark`` of 64 KiB or more it never fires (the slow
        /// consumer slows the transfer instead); do not rely on it to bound a download's duration
        /// or size there — use ``TransferOptions/maxResponseBytes`` for that.
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
