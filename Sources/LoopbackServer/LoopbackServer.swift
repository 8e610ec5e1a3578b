import Foundation

/// A small HTTP/1.1 server on 127.0.0.1 for tests, benchmarks and demos.
///
/// `init()` binds a kernel-chosen port and starts serving at once: one accept thread plus a
/// dedicated thread per connection (blocking I/O and sleeps never touch the Swift
/// concurrency pool). Connections are kept alive and pipelining is supported; request
/// bodies may use `Content-Length` or `Transfer-Encoding: chunked`, and
/// `Expect: 100-continue` is answered.
///
/// Routes (any method; `HEAD` gets the same headers without a body):
/// `/bytes/N`, `/versioned/N`, `/stream/N`, `/drip`, `/status/CODE`, `/echo`, `/upload`,
/// `/multipart`, `/redirect/N`, `/redirect-to`, `/redirect-loop`, `/delay/MS`, `/drop`,
/// `/basic-auth/USER/PASS`, `/json`, `/text`, `/response-headers`, `/gzip/N`, `/continue`,
/// and `/fault/{reset,short-body,bad-status-line,bad-header,no-response,close}`;
/// anything else is 404. See the project's LoopbackServer documentation for parameters.
///
/// Always call ``stop()`` (or drop the last reference) when done.
public final class LoopbackServer: Sendable {
    /// The bound TCP port on 127.0.0.1 (read back with `getsockname`).
    public let port: UInt16

    private let core: ServerCore

    /// Binds 127.0.0.1 port 0 (the kernel chooses), starts listening and serving on background threads.
    ///
    /// - Throws: ``LoopbackServerError`` if the socket cannot be created, bound or listened on.
    public init() throws {
        let core = try ServerCore()
        self.core = core
        self.port = core.port
        core.start()
    }

    deinit {
        core.stop()
    }

    /// `http://127.0.0.1:PORT`.
    public var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)")!
    }

    /// The URL of a path with optional query on this server, e.g. `url("/bytes/10?seed=1")`.
    ///
    /// A missing leading `/` is added. Characters not allowed in a URL (such as spaces) are
    /// percent-encoded.
    public func url(_ pathAndQuery: String) -> URL {
        let suffix = pathAndQuery.hasPrefix("/") ? pathAndQuery : "/" + pathAndQuery
        let text = "http://127.0.0.1:\(port)" + suffix
        if let url = URL(string: text) { return url }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert(charactersIn: "?#%")
        guard let encoded = text.addingPercentEncoding(withAllowedCharacters: allowed), let url = URL(string: encoded) else {
            preconditionFailure("LoopbackServer.url: cannot make a URL of \(pathAndQuery)")
        }
        return url
    }

    /// Closes the listener and every open connection, wakes sleeping handlers, and waits until
    /// every server thread has exited. Afterwards the port is closed.
    ///
    /// Idempotent and safe to call from several threads; also called from `deinit`. Blocks the
    /// calling thread briefly (until in-progress `send`/`recv` calls return, normally
    /// milliseconds).
    public func stop() {
        core.stop()
    }

    /// A snapshot of the counters.
    public var stats: Stats {
        core.stats
    }

    /// Zeroes the counters, except ``Stats/openConnections`` and ``Stats/inFlight``, which keep
    /// their current values (``Stats/maxInFlight`` restarts from the current ``Stats/inFlight``).
    /// The request log is not touched; see ``clearRequests()``.
    public func resetStats() {
        core.resetStats()
    }

    /// The recorded requests, oldest first, newest last; at most the last 10 000.
    public var requests: [RecordedRequest] {
        core.requests
    }

    /// Empties the request log.
    public func clearRequests() {
        core.clearRequests()
    }

    /// The version served by `/versioned/N` (its seed, ETag and Last-Modified derive from it).
    /// Starts at 0; set it to simulate a resource that changed on the server.
    public var resourceVersion: Int {
        get { core.resourceVersion }
        set { core.resourceVersion = newValue }
    }

    /// Sets ``resourceVersion``; the same as assigning the property.
    public func setResourceVersion(_ version: Int) {
        core.resourceVersion = version
    }

    /// Adds one to ``resourceVersion`` atomically and returns the new value.
    @discardableResult
    public func bumpResourceVersion() -> Int {
        core.bumpResourceVersion()
    }
}
