/// How a manager on the curl transport uses HTTP/2: streams per connection, whether parallel
/// requests wait to share one connection, and which protocol carries transfers a slow consumer
/// can hold back.
///
/// HTTP/2 is negotiated over TLS (ALPN `h2`) when the server offers it; cleartext `http://` always
/// runs HTTP/1.1. Parallel requests to one origin then share one connection, up to
/// ``maximumConcurrentStreams`` streams each; past that, curl opens another connection (within
/// `httpMaximumConnectionsPerHost`). The URLSession transport ignores these options (its HTTP/2 is
/// its own).
///
/// A transfer the library may pause for its consumer — an event stream
/// (``SessionManager/dataTask(with:options:)``), a body sequence (``SessionManager/stream(from:options:)``),
/// a download — runs over HTTP/1.1 by default with libcurl before 8.1, even where the server
/// offers HTTP/2, and over HTTP/2 with libcurl 8.1 and later (see ``PausableTransfers-swift.enum``).
/// Bodies collected whole — ``SessionManager/data(for:options:)`` and every awaiting
/// ``HTTPClient`` call — are never paused and always get HTTP/2 where the server offers it.
public struct HTTP2Options: Sendable, Hashable {
    /// Which protocol carries a transfer the library may pause for its consumer.
    ///
    /// libcurl 7.88 (Debian 12's) grants every HTTP/2 stream a fixed 32 MiB receive window and
    /// pausing a stream does not take back what was granted: a held stream keeps receiving until
    /// about 32 MiB wait inside libcurl, for as long as it is held, and until then it shares the
    /// connection's bandwidth with the streams being read. Measured (nginx, 64 MiB bodies): with 7
    /// held streams the read one took 0.94 s instead of 0.13 s and RSS grew 266 MiB; with 99
    /// held, 34 s and 3.5 GiB. Over HTTP/1.1 a held transfer stops reading its own socket, TCP
    /// holds the server back, and at most its window (three quarters of
    /// ``BufferPolicy/highWaterMark``) is held.
    public enum PausableTransfers: Sendable, Hashable {
        /// The default: HTTP/2 where the server offers it and the libcurl in use holds a paused
        /// stream cheaply (libcurl 8.1 and later, read from `curl_version_info`), the receive
        /// window kept over HTTP/2 so a held stream is paused; otherwise (libcurl 7.88, Debian
        /// 12's) ``http1_1``.
        case automatic
        /// HTTP/1.1, one connection per running transfer: memory per held
        /// transfer is its window. Held transfers occupy connections, so with
        /// `httpMaximumConnectionsPerHost` of them held, further transfers to that origin wait
        /// for one to finish.
        case http1_1
        /// HTTP/2 where the server offers it: they share connections with every other transfer,
        /// so holding them never makes another transfer wait for a connection — but each held
        /// stream may keep up to 32 MiB inside libcurl 7.88 (100 held streams: up to 3.2 GiB), and
        /// a stream read next to newly held ones runs slower until they have filled their windows.
        /// For a few long-lived streams (event feeds) to an HTTP/2 server, or where connections are
        /// scarce.
        case http2
    }

    /// Streams one HTTP/2 connection carries at once (`CURLMOPT_MAX_CONCURRENT_STREAMS`); more
    /// parallel transfers to the origin open another connection. The server's own limit
    /// (its `SETTINGS_MAX_CONCURRENT_STREAMS`) applies too, whichever is lower. Default 100;
    /// clamped to at least 1.
    public var maximumConcurrentStreams: Int
    /// Whether a request to an `https` origin whose first connection is still being made waits
    /// for it, to share it if it turns out to be HTTP/2 (`CURLOPT_PIPEWAIT`), instead of opening
    /// a connection of its own. Default `true`: 100 parallel requests open one connection, not
    /// `httpMaximumConnectionsPerHost`. The wait is the TLS handshake; once ALPN says HTTP/1.1
    /// the waiting requests open their own connections.
    public var waitsForMultiplexing: Bool
    /// Which protocol carries a transfer the library may pause. Default ``PausableTransfers-swift.enum/automatic``.
    public var pausableTransfers: PausableTransfers

    /// Creates options; `maximumConcurrentStreams` is clamped to `1...Int32.max`.
    public init(
        maximumConcurrentStreams: Int = 100,
        waitsForMultiplexing: Bool = true,
        pausableTransfers: PausableTransfers = .automatic
    ) {
        self.maximumConcurrentStreams = min(max(1, maximumConcurrentStreams), Int(Int32.max))
        self.waitsForMultiplexing = waitsForMultiplexing
        self.pausableTransfers = pausableTransfers
    }

    /// 100 streams per connection, parallel requests wait to share one, pausable transfers as
    /// ``PausableTransfers-swift.enum/automatic`` says.
    public static let `default` = HTTP2Options()
}
