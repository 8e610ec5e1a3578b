#if os(Linux) && canImport(CCurlShim)
import Foundation
import FoundationNetworking
import Synchronization

/// The curl transport as the ``SessionManager`` sees it: one ``CurlMultiLoop`` (a thread of its own)
/// whose thread is the manager's executor (batches of events enter the actor with no hop), and the
/// translation of a transfer's next attempt into a ``CurlRequest``.
final class CurlSessionTransport: Sendable {
    let loop: CurlMultiLoop
    /// The configuration's `timeoutIntervalForResource`, when shorter than URLSession's 7 days.
    let totalTimeout: Duration?
    /// The configuration's `timeoutIntervalForRequest`, used when a request keeps the default 60 s.
    let defaultIdleTimeout: TimeInterval
    /// How HTTP/2 is used (streams per connection are the loop's; the rest is per attempt).
    let http2: HTTP2Options

    /// Starts the loop thread. Events go to `deliver` on the loop thread — the manager's executor
    /// (`CurlLoopExecutor`); jobs go to `fallback` once the loop has exited.
    init(
        configuration: URLSessionConfiguration, http2: HTTP2Options = .default, fallback: DispatchQueue,
        deliver: @escaping @Sendable ([CurlEvent]) -> Void
    ) throws(CurlLibraryError) {
        var loopConfiguration = CurlMultiLoop.Configuration()
        loopConfiguration.maxHostConnections = max(1, configuration.httpMaximumConnectionsPerHost)
        loopConfiguration.maxConcurrentStreams = http2.maximumConcurrentStreams
        self.http2 = http2
        loop = try CurlMultiLoop(configuration: loopConfiguration, fallback: fallback, handler: deliver)
        let resource = configuration.timeoutIntervalForResource
        // NaN, ≤ 0, infinite, huge and URLSession's 7 days all mean no total limit (never a trap).
        totalTimeout = resource < 604_800 ? SafeTime.timeout(seconds: resource) : nil
        // NaN or negative: URLSession's default of 60 s (zero keeps meaning no idle timeout).
        let idle = configuration.timeoutIntervalForRequest
        defaultIdleTimeout = idle >= 0 ? idle : 60
    }

    /// The curl request for an attempt of `state`: exactly the request the Session layer built
    /// (configuration headers and an answered credential are already in it, under the redirect
    /// rules — nothing that carries a credential is added here), the upload source, timeouts and
    /// the flow-control window.
    func makeRequest(
        _ request: URLRequest, upload: UploadSource, fileLength: Int64, window: Int?,
        streamedBody: InputStream? = nil, bodyPipe: CurlBodyPipe? = nil
    ) throws(NetworkingError) -> (CurlRequest, bodyStream: InputStream?) {
        guard let url = request.url else { throw NetworkingError(.invalidURL, "the request has no URL", request: request) }
        let headers = (request.allHTTPHeaderFields ?? [:]).map { (name: $0.key, value: $0.value) }
        var stream: InputStream?
        let body: CurlRequestBody
        switch upload {
        case .none: body = request.httpBody.map { .data($0) } ?? .empty
        case .data(let data): body = .data(data)
        case .file(let fileURL): body = .file(fileURL, offset: 0, length: fileLength)
        case .stream:
            // Made by the transfer's producer for this attempt (see SessionManager.launch).
            guard let input = streamedBody else {
                throw NetworkingError(.bodyStreamNotReplayable, "no body stream for this attempt", request: request)
            }
            stream = input
            // Sent chunked, as on URLSession: a streamed body's length is only for progress.
            body = .producer(InputStreamBodyProducer(input), length: nil)
        case .sequence:
            // Fed by this attempt's pump (SessionManager.startCurlAttempt), sent chunked.
            guard let bodyPipe else {
                throw NetworkingError(.bodyStreamNotReplayable, "no body sequence for this attempt", request: request)
            }
            body = .producer(bodyPipe, length: nil)
        }
        var options = CurlTransferOptions()
        let interval = request.timeoutInterval == 60 ? defaultIdleTimeout : request.timeoutInterval
        options.idleTimeout = SafeTime.timeout(seconds: interval) // huge or infinite: no idle timeout
        options.totalTimeout = totalTimeout
        options.receiveWindow = window
        options.httpVersion = Self.httpVersion(forWindow: window, pausableTransfers: http2.pausableTransfers)
        if case .producer = body, !CurlLibrary.endsHTTP2ResponsesWhileSending {
            // libcurl 7.88 cannot tell that an HTTP/2 response ended while a produced body is
            // still open (no content-length, or a NO_ERROR reset): it would never end (CurlResponseEnd).
            options.httpVersion = .http1_1
        }
        // Only an explicit `.http2` gives up the window on an HTTP/2 stream (see HTTP2Options).
        options.keepsWindowOverHTTP2 = http2.pausableTransfers != .http2
        options.keepsOffMultiplexedConnections = options.httpVersion == .http1_1 && url.scheme?.lowercased() == "https"
        // Only where ALPN can answer h2: over cleartext libcurl would make parallel requests
        // wait for the first response head before opening connections of their own.
        options.waitsForMultiplexing = http2.waitsForMultiplexing && options.httpVersion != .http1_1
            && url.scheme?.lowercased() == "https"
        let method = request.httpMethod ?? (body.length.map { $0 > 0 } == true ? "POST" : "GET")
        return (CurlRequest(url: url, method: method, headers: headers, body: body, options: options), stream)
    }

    /// The HTTP version an attempt asks for. One that is never paused (a body collected in
    /// memory: ``SessionManager/data(for:options:)``, every awaiting ``HTTPClient`` call) asks for
    /// HTTP/2 over TLS when ALPN offers it. One that flow control may pause (it has a receive
    /// window: an event stream, a body sequence, a download) asks for HTTP/2 too when
    /// `pausableTransfers` is ``HTTP2Options/PausableTransfers-swift.enum/http2``, or
    /// ``HTTP2Options/PausableTransfers-swift.enum/automatic`` with a libcurl that holds a paused
    /// stream cheaply (`CurlLibrary.pausesHTTP2StreamsCheaply`: 8.1 and later); else HTTP/1.1.
    ///
    /// Why (libcurl 7.88, `lib/http2.c`): every stream is granted `HTTP2_HUGE_WINDOW_SIZE`
    /// (32 MiB) in SETTINGS_INITIAL_WINDOW_SIZE; pausing (`http2_data_pause`) sets the stream's
    /// local window to 0, which only stops further WINDOW_UPDATEs — the server may still send
    /// what was granted. Data for a paused stream is still read off the connection (another
    /// stream's read runs `nghttp2_session_mem_recv`; `on_data_chunk_recv` fills the paused
    /// stream's buffer and answers `NGHTTP2_ERR_PAUSE` until the paused transfer drains it into
    /// its pause buffer), so up to 32 MiB per held stream waits inside libcurl. Measured against
    /// nginx: 99 held streams, +3.5 GiB and the one read stream at 1.9 MiB/s. Over HTTP/1.1 a
    /// paused transfer stops reading its own socket and TCP holds the server back.
    static func httpVersion(
        forWindow window: Int?, pausableTransfers: HTTP2Options.PausableTransfers = .automatic,
        pausesHTTP2StreamsCheaply: Bool = CurlLibrary.pausesHTTP2StreamsCheaply
    ) -> CurlHTTPVersion {
        guard window != nil else { return .automatic }
        switch pausableTransfers {
        case .http2: return .automatic
        case .http1_1: return .http1_1
        case .automatic: return pausesHTTP2StreamsCheaply ? .automatic : .http1_1
        }
    }
}

/// One attempt of a transfer on the curl loop, with what the Session layer tracks of it.
final class CurlAttempt: PausableInPlace {
    let id: CurlTransferID
    let loop: CurlMultiLoop
    /// The running total of request-body bytes last reported (curl reports totals).
    var sentTotal: Int64 = 0
    /// The request-body length, for upload progress (`-1`: unknown).
    let bodyLength: Int64
    /// The URL the attempt asked for (the response's URL: curl follows no redirect itself).
    let url: URL
    /// What the consumer had read when this attempt started (its window counts from there).
    var consumedAtStart: Int64 = 0
    /// The security policy the attempt runs under (to name what a TLS failure broke).
    var policy = SecurityPolicy.default
    /// The explicit proxy the attempt went through (`nil`: direct or the environment's).
    var proxy: ProxyServer?
    /// Whether libcurl chose the proxy from the environment (``ProxyConfiguration/environment``).
    var usesEnvironmentProxy = false

    init(id: CurlTransferID, loop: CurlMultiLoop, url: URL, bodyLength: Int64?) {
        self.id = id
        self.loop = loop
        self.url = url
        self.bodyLength = bodyLength ?? -1
    }

    var attemptID: AttemptID { AttemptID(id.rawValue) }

    func cancel() { loop.cancel(id) }

    func setPaused(_ paused: Bool) {
        if paused {
            loop.pauseReceiving(id)
            loop.pauseSending(id)
        } else {
            loop.resumeReceiving(id)
            loop.resumeSending(id)
        }
    }
}

/// Reads an upload's `InputStream` on the loop thread. The streams the library builds (spooled
/// files, multipart parts from disk) never wait long; a read error fails the transfer.
final class InputStreamBodyProducer: CurlBodyProducer, @unchecked Sendable { // reason: InputStream is not Sendable; only the loop thread reads it after hand-off
    // reason: `InputStream` is not Sendable; only the loop thread touches it after creation.
    private let stream: InputStream
    private var opened = false

    init(_ stream: InputStream) { self.stream = stream }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> CurlBodyRead {
        if !opened {
            opened = true
            stream.open()
        }
        let count = stream.read(buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), maxLength: buffer.count)
        if count > 0 { return .bytes(count) }
        if count == 0 { return .end }
        return .failed("the request body stream reported an error")
    }
}
#endif
