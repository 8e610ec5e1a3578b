import Foundation

/// A shared allowance of retries, so a failing dependency is not hammered (gRPC's retry
/// throttling, as a token bucket).
///
/// The bucket starts full with ``capacity`` tokens. Every retry takes one token; a request that
/// succeeds puts back ``refillPerSuccess`` (never above the capacity). With no token left,
/// requests are still sent but not retried. So during an outage at most `capacity` retries are
/// spent, after which retries come back in proportion to successes (one retry per ten successes
/// with the defaults).
///
/// A budget is a reference: every ``DefaultRetryPolicy`` holding it — and so every copy of an
/// ``HTTPClient`` whose pipeline holds that policy — draws from the same bucket. Thread-safe.
public final class RetryBudget: Sendable {
    /// The most tokens the bucket holds, and how many it starts with. Default 10.
    public let capacity: Double
    /// Tokens put back by each success. Default 0.1.
    public let refillPerSuccess: Double

    private let tokens: SanitizedMutex<Double>

    /// Creates a full budget; every argument has the default described on its property.
    public init(capacity: Double = 10, refillPerSuccess: Double = 0.1) {
        self.capacity = max(0, capacity)
        self.refillPerSuccess = max(0, refillPerSuccess)
        self.tokens = SanitizedMutex(max(0, capacity))
    }

    /// The tokens left now.
    public var available: Double { tokens.withLock { $0 } }

    /// Takes one token for a retry; `false` (and nothing taken) when less than one is left.
    public func withdraw() -> Bool {
        tokens.withLock { tokens in
            guard tokens >= 1 else { return false }
            tokens -= 1
            return true
        }
    }

    /// Puts back ``refillPerSuccess`` tokens for a success.
    public func deposit() {
        tokens.withLock { tokens in tokens = min(capacity, tokens + refillPerSuccess) }
    }
}
