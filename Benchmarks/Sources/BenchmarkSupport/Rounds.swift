/// Runs `pass` until at least `minimumSeconds` have passed, so fast contenders are timed over more
/// than a few milliseconds.
/// - Returns: the seconds and the passes made.
package func timedPasses(minimumSeconds: Double, _ pass: () async throws -> Void) async throws -> (seconds: Double, passes: Int) {
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

/// Runs every contender once per round, `rounds` times: round `r` starts with contender
/// `r mod count` and goes round the list, so no contender always runs first (on a cold cache) or
/// last (after the others warmed the machine up). `measure` returns the fragment of the round's
/// progress line for that contender (` ours 1234`); each round logs one line
/// `  <name> round r/rounds: … <unit>`.
package func rotateRounds<Contender>(
    _ contenders: [Contender], rounds: Int, name: String, unit: String = "",
    _ measure: (Contender) async throws -> String
) async throws {
    for round in 0..<rounds {
        var line = "  \(name) round \(round + 1)/\(rounds):"
        for step in 0..<contenders.count {
            line += try await measure(contenders[(round + step) % contenders.count])
        }
        log(unit.isEmpty ? line : line + " " + unit)
    }
}

/// One contender of an in-process scenario: a name and a measurement that returns one sample.
package struct Variant: Sendable {
    package let name: String
    package let measure: @Sendable () async throws -> Sample

    package init(name: String, measure: @escaping @Sendable () async throws -> Sample) {
        self.name = name
        self.measure = measure
    }
}

/// One measurement: its value in the scenario's unit, and how many requests it made (for CPU per
/// request).
package struct Sample: Sendable {
    package let value: Double
    package let requests: Int

    package init(value: Double, requests: Int) {
        self.value = value
        self.requests = requests
    }
}

/// Runs variants alternately in one process (see ``rotateRounds(_:rounds:name:unit:_:)``).
///
/// Each sample also records the CPU time the whole process used meanwhile (user + system, every
/// thread, an embedded server included): a noisy machine changes wall-clock rates far more than
/// the CPU each request costs.
///
/// - Returns: every variant's samples and CPU seconds per request, by name, in round order.
package func alternate(
    _ name: String, _ variants: [Variant], rounds: Int, unit: String
) async throws -> (samples: [String: [Double]], cpu: [String: [Double]]) {
    var samples: [String: [Double]] = [:]
    var cpu: [String: [Double]] = [:]
    try await rotateRounds(variants, rounds: rounds, name: name, unit: unit) { variant in
        let cpuBefore = Measure.processCPUSeconds()
        let sample = try await variant.measure()
        cpu[variant.name, default: []].append((Measure.processCPUSeconds() - cpuBefore) / Double(max(sample.requests, 1)))
        samples[variant.name, default: []].append(sample.value)
        return " \(variant.name) \(Format.number(sample.value))"
    }
    return (samples, cpu)
}

/// Runs `operation(i)` for every `i` in `0..<count` with at most `width` running at once, starting
/// in order and refilling as each ends (a hand-written sliding-window TaskGroup).
/// With `width` 1 it is a plain loop in the calling task (no child tasks).
package func slidingWindow(count: Int, width: Int, _ operation: @escaping @Sendable (Int) async throws -> Void) async throws {
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
