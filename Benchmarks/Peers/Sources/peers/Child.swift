import Foundation

/// What a child process reports back: one measurement of one contender, and its own peak RSS.
struct ChildReport: Codable, Sendable {
    /// req/s for the request scenarios, MB/s (10^6 bytes per second) for stream-1g, the busy p99
    /// (ms) for mixed-load.
    var value: Double
    /// Wall-clock seconds of the measured part.
    var seconds: Double
    /// CPU seconds (user + system, every thread) the child used in the measured part: the client
    /// alone, since the server runs in the parent.
    var cpuSeconds: Double
    /// `VmHWM` at the end: the child's peak resident set size, KiB.
    var peakRSSKiB: Int
    /// mixed-load only.
    var mixed: MixedLoadFigures? = nil
}

/// The child side: one contender, one scenario, once. Nothing else runs in the process, so its
/// peak RSS and CPU time are the contender's alone.
enum ChildRunner {
    static func run(_ spec: ChildSpec) async throws {
        let client = PeerClient.make(spec.contender)
        let endpoints = Endpoints(server: spec.server, bigBytes: spec.size)
        let width = spec.scenario.width
        var mixed: MixedLoadFigures?

        // Warm up (open connections, fault in code paths), as the root benchmark does.
        if spec.scenario != .mixedLoad {
            try await slidingWindow(count: 4 * width + 20, width: width) { _ in try await client.get(endpoints) }
        }
        let cpuBefore = Measure.processCPUSeconds()
        let start = ContinuousClock.now
        switch spec.scenario {
        case .smallSeq, .smallC16:
            try await slidingWindow(count: spec.size, width: width) { _ in try await client.get(endpoints) }
        case .batch:
            try await client.batch(endpoints, count: spec.size, width: width)
        case .stream1g:
            let bytes = try await client.stream(endpoints, events: true)
            guard bytes == spec.size else { throw BenchmarkError("stream-1g: \(bytes) of \(spec.size) bytes") }
        case .mixedLoad:
            mixed = try await MixedLoad.run(client: client, endpoints: endpoints, bytes: spec.size)
        }
        let seconds = Measure.seconds(ContinuousClock.now - start)
        let cpu = Measure.processCPUSeconds() - cpuBefore
        await client.shutdown()

        let value: Double
        switch spec.scenario {
        case .smallSeq, .smallC16, .batch: value = Double(spec.size) / seconds
        case .stream1g: value = Measure.megabytesPerSecond(spec.size, seconds: seconds)
        case .mixedLoad: value = mixed?.busyP99 ?? .nan
        }
        let report = ChildReport(value: value, seconds: seconds, cpuSeconds: cpu, peakRSSKiB: Measure.peakRSSKiB(), mixed: mixed)
        try JSONEncoder().encode(report).write(to: spec.result)
    }
}

/// Re-executes this binary as a child for one measurement and reads its report.
enum ChildProcess {
    static func run(_ spec: ChildSpec) async throws -> ChildReport {
        try await run(
            arguments: [
                "--child", spec.scenario.rawValue, "--client", spec.contender.rawValue,
                "--server", spec.server.absoluteString, "--count", String(spec.size), "--result", spec.result.path,
            ],
            result: spec.result, name: "\(spec.scenario.rawValue) --client \(spec.contender.rawValue)"
        )
    }

    /// Runs this binary with `arguments` and decodes the ``ChildReport`` it wrote to `result`.
    static func run(arguments: [String], result: URL, name: String) async throws -> ChildReport {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        defer { try? FileManager.default.removeItem(at: result) }
        guard status == 0 else {
            throw BenchmarkError("child \(name) exited with status \(status)")
        }
        return try JSONDecoder().decode(ChildReport.self, from: Data(contentsOf: result))
    }
}
