extension LoopbackServer {
    /// A snapshot of the server's counters, taken with ``LoopbackServer/stats``.
    ///
    /// Counters are updated before the bytes they describe reach the client: once a client
    /// has read a whole response, that response is already in ``completedResponses`` and no
    /// longer in ``inFlight``. Counters about connections closing (``openConnections``) and
    /// aborts detected by the server trail the client's action slightly; poll for them.
    public struct Stats: Sendable, Equatable {
        /// Requests whose head was fully parsed.
        public var requestCount: Int = 0
        /// Connections accepted in total.
        public var connectionCount: Int = 0
        /// Connections currently open.
        public var openConnections: Int = 0
        /// Requests currently being handled (head parsed, response not yet finished).
        public var inFlight: Int = 0
        /// The largest ``inFlight`` seen since the server started or ``LoopbackServer/resetStats()``.
        public var maxInFlight: Int = 0
        /// Requests whose client closed the connection before the response was fully written
        /// (during a `/delay`, a `/drip`, a long body, or while the server read the request body).
        /// Intentional server-side drops (`/drop`, `/fault/…`) and `stop()` do not count.
        public var clientAborts: Int = 0
        /// Responses fully written.
        public var completedResponses: Int = 0

        /// All counters zero.
        public init() {}
    }
}
