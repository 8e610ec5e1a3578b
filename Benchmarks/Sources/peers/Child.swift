import BenchmarkSupport
import Foundation

/// The child side: one contender, one scenario, once. Nothing else runs in the process, so its
/// peak RSS and CPU time are the contender's alone.
enum ChildRunner {
    static func run(_ spec: HTTPChildSpec) async throws {
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
        case .batch1000:
            try await client.batch(endpoints, count: spec.size, width: width)
        case .stream1g:
            let bytes = try await client.stream(endpoints, events: true)
            guard bytes == spec.size else { throw BenchmarkError("stream-1g: \(bytes) of \(spec.size) bytes") }
        case .download1g, .upload1g, .slowConsumer1g:
            throw BenchmarkError("peers does not run \(spec.scenario.rawValue)")
        case .mixedLoad:
            mixed = try await MixedLoad.measure(expectedBytes: spec.size, name: spec.contender.rawValue) {
                try await client.get(endpoints)
            } stream: {
                try await client.stream(endpoints, events: false)
            }
        }
        let seconds = Measure.seconds(ContinuousClock.now - start)
        let cpu = Measure.processCPUSeconds() - cpuBefore
        await client.shutdown()

        let value: Double
        switch spec.scenario {
        case .smallSeq, .smallC16, .batch1000: value = Double(spec.size) / seconds
        case .mixedLoad: value = mixed?.busyP99 ?? .nan
        default: value = Measure.megabytesPerSecond(spec.size, seconds: seconds)
        }
        try ChildReport(value: value, seconds: seconds, cpuSeconds: cpu, mixed: mixed).write(to: spec.result)
    }
}
