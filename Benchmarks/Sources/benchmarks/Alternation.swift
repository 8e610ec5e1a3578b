/// One contender in a scenario: a name and a measurement that returns one sample.
struct Variant: Sendable {
    let name: String
    let measure: @Sendable () async throws -> Sample
}

/// One measurement: its value in the scenario's unit, and how many requests it made (for CPU per
/// request).
struct Sample: Sendable {
    let value: Double
    let requests: Int
}

/// Runs `pass` (which makes `requestsPerPass` requests) until at least `minimumSeconds` have
/// passed, so fast contenders are timed over more than a few milliseconds.
/// - Returns: the seconds and the passes made.
func timedPasses(minimumSeconds: Double, _ pass: () async throws -> Void) async throws -> (seconds: Double, passes: Int) {
    let start = ContinuousClock.now
    var passes = 0
    var seconds = 0.0
    repeat {
        try await pass()
        passes += 1
        seconds = Measure.seconds(ContinuousClock.now - start)
    } while seconds < minimumSeconds
    return (seconds, passes)
}

/// Runs variants alternately, round after round, in one process: round `r` starts with variant
/// `r mod count` and goes round the list, so no variant always runs first (on a cold cache) or
/// last (after the others warmed the machine up).
///
/// Each sample also records the CPU time the whole process used meanwhile (user + system, every
/// thread, the embedded server included): a noisy machine changes wall-clock rates far more than
/// the CPU each request costs.
///
/// - Returns: every variant's samples and CPU seconds per request, by name, in round order.
func alternate(_ scenario: Scenario, _ variants: [Variant], rounds: Int, unit: String) async throws -> (samples: [String: [Double]], cpu: [String: [Double]]) {
    var samples: [String: [Double]] = [:]
    var cpu: [String: [Double]] = [:]
    for round in 0..<rounds {
        var line = "  \(scenario.rawValue) round \(round + 1)/\(rounds):"
        for step in 0..<variants.count {
            let variant = variants[(round + step) % variants.count]
            let cpuBefore = Measure.processCPUSeconds()
            let sample = try await variant.measure()
            cpu[variant.name, default: []].append((Measure.processCPUSeconds() - cpuBefore) / Double(max(sample.requests, 1)))
            samples[variant.name, default: []].append(sample.value)
            line += " \(variant.name) \(Format.number(sample.value))"
        }
        log(line + " \(unit)")
    }
    return (samples, cpu)
}

/// Runs `operation(i)` for every `i` in `0..<count` with at most `width` running at once, starting
/// in order and refilling as each ends (a hand-written sliding-window TaskGroup).
/// With `width` 1 it is a plain loop in the calling task (no child tasks).
func slidingWindow(count: Int, width: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws {
    if width <= 1 {
        for index in 0..<count { try await operation(index) }
        return
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(width, count) {
            let index = next
            group.addTask { try await operation(index) }
            next += 1
        }
        while try await group.next() != nil {
            if next < count {
                let index = next
                group.addTask { try await operation(index) }
                next += 1
            }
        }
    }
}

/// A benchmark run failed (a wrong status, a short body, a child that crashed).
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
