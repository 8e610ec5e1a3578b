import Foundation

extension EventSource {
    /// How an ``EventSource`` reconnects and bounds its memory.
    ///
    /// Every wait before a reconnection lies in
    /// ``minimumReconnectionTime``...``maxReconnectionTime``, whatever the server's `retry:` says:
    /// a server answering `retry: 0`, one event and the end of its body cannot make the client
    /// reconnect in a loop, and a huge `retry:` cannot park it past the maximum.
    public struct Configuration: Sendable, Hashable {
        /// The wait before reconnecting until the server sends a `retry:` field (which then
        /// replaces it, clamped to ``minimumReconnectionTime``...``maxReconnectionTime``).
        /// Default 3 seconds, the usual browser value; never below ``minimumReconnectionTime``.
        public var reconnectionTime: Duration
        /// The floor of every wait, a server's `retry:` included. Default 500 ms (Firefox's
        /// minimum); lower it only for tests against a server you control.
        public var minimumReconnectionTime: Duration
        /// Each unhealthy attempt in a row — a connection that failed (no `200 text/event-stream`
        /// response) or a stream that ended before ``healthyConnectionTime`` — multiplies the wait
        /// by this factor, up to ``maxReconnectionTime``, with jitter (a grown wait is drawn
        /// uniformly from its upper half). A stream that stayed open ``healthyConnectionTime``
        /// resets it. Default 2; `1` waits the reconnection time every time.
        public var backoffMultiplier: Double
        /// The longest wait: the cap of backoff and of a server's `retry:`. Default 60 seconds;
        /// never below ``minimumReconnectionTime``.
        public var maxReconnectionTime: Duration
        /// How long a stream must stay open to count as healthy. One that ends sooner (even after
        /// delivering events) counts as unhealthy for backoff, not for ``maxFailedAttempts``.
        /// Default 5 seconds.
        public var healthyConnectionTime: Duration
        /// Give up, throwing the last error, after this many failed attempts in a row. Default
        /// `nil`: keep trying until the caller's task is cancelled (the standard's behaviour).
        public var maxFailedAttempts: Int?
        /// The longest line and the largest event. Default ``StreamLimits/default``.
        public var limits: StreamLimits
        /// Options of each connection's transfer (buffering, priority). Default ``TransferOptions/default``.
        public var transferOptions: TransferOptions

        /// Creates a configuration; every argument has the default described on its property.
        /// Negative durations are zero; a multiplier that is NaN, infinite or below 1 is 1.
        public init(
            reconnectionTime: Duration = .seconds(3),
            backoffMultiplier: Double = 2,
            maxReconnectionTime: Duration = .seconds(60),
            maxFailedAttempts: Int? = nil,
            limits: StreamLimits = .default,
            transferOptions: TransferOptions = .default,
            minimumReconnectionTime: Duration = .milliseconds(500),
            healthyConnectionTime: Duration = .seconds(5)
        ) {
            let floor = Swift.max(.zero, minimumReconnectionTime)
            self.minimumReconnectionTime = floor
            self.reconnectionTime = Swift.max(floor, reconnectionTime)
            self.backoffMultiplier = backoffMultiplier.isFinite ? Swift.max(1, backoffMultiplier) : 1
            self.maxReconnectionTime = Swift.max(floor, maxReconnectionTime)
            self.healthyConnectionTime = Swift.max(.zero, healthyConnectionTime)
            self.maxFailedAttempts = maxFailedAttempts.map { Swift.max(0, $0) }
            self.limits = limits
            self.transferOptions = transferOptions
        }

        /// All defaults.
        public static let `default` = Configuration()

        /// The wait before the next attempt (pure), always in
        /// ``minimumReconnectionTime``...``maxReconnectionTime``.
        ///
        /// - Parameters:
        ///   - serverRetry: the server's last valid `retry:` in milliseconds, if any.
        ///   - failedAttempts: unhealthy attempts in a row (see ``backoffMultiplier``).
        ///   - jitter: where in the upper half of the grown wait to land, `0...1` (`1`: the whole
        ///     grown wait). Ignored when nothing grew.
        func delay(serverRetry: Int?, failedAttempts: Int, jitter: Double = 1) -> Duration {
            let floor = minimumReconnectionTime
            let cap = Swift.max(floor, maxReconnectionTime) // a property may have been set below the floor
            let asked = serverRetry.map { Duration.milliseconds(Swift.max(0, $0)) } ?? reconnectionTime
            let base = Swift.min(cap, Swift.max(floor, asked))
            guard failedAttempts > 0, backoffMultiplier > 1, backoffMultiplier.isFinite else { return base }
            let factor = Foundation.pow(backoffMultiplier, Double(Swift.min(failedAttempts, 64)))
            let grown = SafeTime.delay(seconds: SafeTime.seconds(base) * factor, maximum: cap)
            let unit = jitter.isFinite ? Swift.min(1, Swift.max(0, jitter)) : 1
            let jittered = SafeTime.delay(seconds: SafeTime.seconds(grown) * (0.5 + 0.5 * unit), maximum: cap)
            return Swift.max(base, jittered)
        }
    }
}
