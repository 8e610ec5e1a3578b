import Foundation

extension EventSource {
    /// How an ``EventSource`` reconnects and bounds its memory.
    public struct Configuration: Sendable, Hashable {
        /// The wait before reconnecting until the server sends a `retry:` field (which then wins).
        /// Default 3 seconds, the usual browser value.
        public var reconnectionTime: Duration
        /// Each failed attempt in a row (no `200 text/event-stream` response) multiplies the wait
        /// by this factor, up to ``maxReconnectionTime``. A connection that opened resets it.
        /// Default 2; `1` waits the reconnection time every time.
        public var backoffMultiplier: Double
        /// The longest wait that backoff produces. A server's `retry:` larger than this is still
        /// honoured. Default 60 seconds.
        public var maxReconnectionTime: Duration
        /// Give up, throwing the last error, after this many failed attempts in a row. Default
        /// `nil`: keep trying until the caller's task is cancelled (the standard's behaviour).
        public var maxFailedAttempts: Int?
        /// The longest line and the largest event. Default ``StreamLimits/default``.
        public var limits: StreamLimits
        /// Options of each connection's transfer (buffering, priority). Default ``TransferOptions/default``.
        public var transferOptions: TransferOptions

        /// Creates a configuration; every argument has the default described on its property.
        public init(
            reconnectionTime: Duration = .seconds(3),
            backoffMultiplier: Double = 2,
            maxReconnectionTime: Duration = .seconds(60),
            maxFailedAttempts: Int? = nil,
            limits: StreamLimits = .default,
            transferOptions: TransferOptions = .default
        ) {
            self.reconnectionTime = Swift.max(.zero, reconnectionTime)
            self.backoffMultiplier = backoffMultiplier.isFinite ? Swift.max(1, backoffMultiplier) : 1
            self.maxReconnectionTime = Swift.max(.zero, maxReconnectionTime)
            self.maxFailedAttempts = maxFailedAttempts.map { Swift.max(0, $0) }
            self.limits = limits
            self.transferOptions = transferOptions
        }

        /// All defaults.
        public static let `default` = Configuration()

        /// The wait before the next attempt (pure).
        ///
        /// - Parameters:
        ///   - serverRetry: the server's last valid `retry:` in milliseconds, if any.
        ///   - failedAttempts: failed attempts in a row since the last connection that opened.
        func delay(serverRetry: Int?, failedAttempts: Int) -> Duration {
            let base = serverRetry.map { Duration.milliseconds($0) } ?? reconnectionTime
            guard failedAttempts > 0, backoffMultiplier > 1 else { return base }
            let factor = Foundation.pow(backoffMultiplier, Double(Swift.min(failedAttempts, 64)))
            let seconds = Double(base.components.seconds) + Double(base.components.attoseconds) / 1e18
            let grown = seconds * factor
            let capped = Swift.min(grown, Double(maxReconnectionTime.components.seconds) + Double(maxReconnectionTime.components.attoseconds) / 1e18)
            return Swift.max(base, .milliseconds(Int64(capped * 1000)))
        }
    }
}
