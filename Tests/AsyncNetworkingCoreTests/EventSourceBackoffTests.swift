@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// RULE: every reconnection wait of an ``EventSource`` lies in
/// `minimumReconnectionTime...maxReconnectionTime` (500 ms...60 s by default), a server's
/// `retry:` included; streams that keep ending right away (within `healthyConnectionTime`) back
/// off exponentially with jitter; a healthy stream resets the backoff.
@Suite struct EventSourceBackoffTests {
    /// Records each requested wait and returns at once.
    actor Waits {
        var values: [Duration] = []
        func record(_ value: Duration) { values.append(value) }
    }

    /// A clock that moves `step` every time it is read (`.zero`: stands still).
    final class SteppingClock: Sendable {
        private let state: SanitizedMutex<ContinuousClock.Instant>
        private let step: Duration
        init(step: Duration) {
            self.step = step
            state = SanitizedMutex(.now)
        }
        func read() -> ContinuousClock.Instant {
            state.withLock { now in
                now = now.advanced(by: step)
                return now
            }
        }
    }

    /// Reads `events` events of `path` with waits recorded instead of slept; every connection
    /// lives `lifetime` by the source's clock.
    static func waits(
        _ path: String, events: Int, lifetime: Duration, configuration: EventSource.Configuration = .default
    ) async throws -> (waits: [Duration], connections: Int) {
        try await withServerAndManager { server, manager in
            let waits = Waits()
            let clock = SteppingClock(step: lifetime)
            var source = manager.serverSentEvents(for: URLRequest(url: server.url(path)), configuration: configuration)
            source.sleep = { await waits.record($0) }
            source.now = { clock.read() }
            var received = 0
            for try await _ in source {
                received += 1
                if received == events { break }
            }
            return (await waits.values, server.requests.filter { $0.path == "/sse-once" }.count)
        }
    }

    @Test func aServerAnsweringRetryZeroAndEndingAtOnceIsBackedOff() async throws {
        let (waits, connections) = try await Self.waits("/sse-once?retry=0", events: 10, lifetime: .zero)
        #expect(connections == 10, "one event per connection")
        #expect(waits.count == 9)
        for (index, wait) in waits.enumerated() {
            // The floor (500 ms) doubled for each stream in a row that ended at once, capped at
            // 60 s, drawn from the upper half of that.
            let grown = min(60.0, 0.5 * pow(2, Double(index + 1)))
            let seconds = SafeTime.seconds(wait)
            #expect(seconds >= max(0.5, grown / 2) && seconds <= grown, "wait \(index): \(wait), expected \(grown / 2)...\(grown)")
        }
    }

    @Test func aHealthyStreamResetsTheBackoffAndRetryZeroStillWaitsTheFloor() async throws {
        let (waits, _) = try await Self.waits("/sse-once?retry=0", events: 6, lifetime: .seconds(10))
        #expect(waits == Array(repeating: .milliseconds(500), count: 5))
    }

    @Test func aHugeRetryIsClampedToTheMaximum() async throws {
        let (waits, _) = try await Self.waits("/sse-once?retry=99999999999", events: 4, lifetime: .seconds(10))
        #expect(waits == Array(repeating: .seconds(60), count: 3))
        let configured = EventSource.Configuration(maxReconnectionTime: .seconds(7))
        let (short, _) = try await Self.waits("/sse-once?retry=99999999999", events: 3, lifetime: .zero, configuration: configured)
        #expect(short.count == 2)
        #expect(short.allSatisfy { $0 >= .seconds(3.5) && $0 <= .seconds(7) }, "\(short)")
    }

    @Test func realConnectionsToAStormingServerStayFew() async throws {
        // Real sleeps: within a bounded window, count connections. Before the fix: hundreds.
        try await withServerAndManager { server, manager in
            let reader = Task {
                for try await _ in manager.serverSentEvents(for: URLRequest(url: server.url("/sse-once?retry=0"))) {}
            }
            // Waits of 0.5, ≥ 0.5, ≥ 1, ≥ 2 s: at most 4 connections can start within 2 s.
            try await Task.sleep(for: .seconds(2))
            reader.cancel()
            _ = await reader.result
            let connections = server.requests.filter { $0.path == "/sse-once" }.count
            #expect(connections >= 1 && connections <= 4, "\(connections) connections")
        }
    }

    // MARK: The backoff as values

    @Test func delaysAreAlwaysWithinTheFloorAndTheCap() {
        let configuration = EventSource.Configuration()
        for retry in [nil, 0, -5, 1, 499, 501, 60_000, 99_999_999_999, Int.max] as [Int?] {
            for failures in [0, 1, 2, 10, 64, 10_000, Int.max] {
                for jitter in [0, 0.5, 1, .nan, -1, 2] as [Double] {
                    let delay = configuration.delay(serverRetry: retry, failedAttempts: failures, jitter: jitter)
                    #expect(delay >= .milliseconds(500) && delay <= .seconds(60), "retry \(String(describing: retry)) failures \(failures) jitter \(jitter): \(delay)")
                }
            }
        }
        #expect(configuration.delay(serverRetry: 0, failedAttempts: 0) == .milliseconds(500))
        #expect(configuration.delay(serverRetry: 2000, failedAttempts: 0) == .seconds(2))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 0) == .seconds(3))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 1, jitter: 0) == .seconds(3))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 1, jitter: 1) == .seconds(6))
        #expect(configuration.delay(serverRetry: nil, failedAttempts: 5, jitter: 1) == .seconds(60))
    }

    @Test func configurationBoundsAreConsistent() {
        let odd = EventSource.Configuration(
            reconnectionTime: .milliseconds(10), backoffMultiplier: .nan, maxReconnectionTime: .milliseconds(100),
            minimumReconnectionTime: .seconds(1)
        )
        #expect(odd.reconnectionTime == .seconds(1))
        #expect(odd.maxReconnectionTime == .seconds(1))
        #expect(odd.backoffMultiplier == 1)
        #expect(odd.delay(serverRetry: 0, failedAttempts: 9) == .seconds(1))
    }
}
