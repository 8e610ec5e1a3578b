import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The child side of a memory scenario: runs one variant once against the parent's server and
/// writes a ``ChildReport`` (`value`: MB/s of the body moved). Nothing else runs in the process, so its peak RSS is the variant's.
enum ChildRunner {
    /// The child process's work and its exit status.
    static func main(_ spec: ChildSpec) async -> Int32 {
        await exitStatus("benchmarks child \(spec.scenario.rawValue) \(spec.mode.rawValue)") { try await run(spec) }
    }

    static func run(_ spec: ChildSpec) async throws {
        let cpuBefore = Measure.processCPUSeconds()
        let start = ContinuousClock.now
        var mixed: MixedLoadFigures?
        switch (spec.scenario, spec.mode) {
        case (.stream1g, .ours), (.stream1g, .oursURLSession): try await StreamVariants.oursEvents(spec)
        case (.stream1g, .baseline): try await StreamVariants.rawCounting(spec)
        case (.stream1g, .rawCurl): try await StreamVariants.rawCurl(spec)
        case (.stream1g, .oursOnLoop): try await StreamVariants.oursEventsOnLoop(spec)
        case (_, .oursOnLoop): throw BenchmarkError("\(spec.scenario.rawValue) has no ours-on-loop contender")
        case (.slowConsumer1g, .ours), (.slowConsumer1g, .oursURLSession): try await StreamVariants.oursSlow(spec)
        case (.slowConsumer1g, .baseline): try await StreamVariants.rawSlow(spec)
        case (.download1g, .ours), (.download1g, .oursURLSession): try await FileVariants.oursDownload(spec)
        case (.download1g, .baseline): try await FileVariants.rawDownload(spec)
        case (.upload1g, .ours), (.upload1g, .oursURLSession): try await FileVariants.oursUpload(spec)
        case (.upload1g, .baseline): try await FileVariants.rawUpload(spec)
        case (.mixedLoad, _): mixed = try await MixedLoadVariants.child(spec)
        case (_, .rawCurl):
            throw BenchmarkError("\(spec.scenario.rawValue) has no raw libcurl contender")
        case (.smallSeq, _), (.smallC16, _), (.batch1000, _):
            throw BenchmarkError("\(spec.scenario.rawValue) does not run in a child process")
        }
        let seconds = mixed?.streamSeconds ?? Measure.seconds(ContinuousClock.now - start)
        let report = ChildReport(
            value: Measure.megabytesPerSecond(spec.bytes, seconds: seconds), seconds: seconds,
            cpuSeconds: Measure.processCPUSeconds() - cpuBefore, mixed: mixed
        )
        try report.write(to: spec.result)
    }
}

/// A consumer that sleeps between chunks whenever it is ahead of a fixed reading rate, well below
/// what loopback delivers (about 400 MB/s), so the producer always runs ahead of it.
struct SlowConsumer {
    /// 128 MiB/s: 8 s for 1 GiB.
    static let bytesPerSecond = 128.0 * 1_048_576

    private let start = ContinuousClock.now
    private(set) var consumed = 0

    /// Counts `bytes` as read, then sleeps until the schedule catches up.
    mutating func consume(_ bytes: Int) async {
        consumed += bytes
        let due = start + .seconds(Double(consumed) / Self.bytesPerSecond)
        if due > .now { try? await Task.sleep(until: due, clock: .continuous) }
    }
}

/// stream-1g and slow-consumer-1g, both sides.
enum StreamVariants {
    static func request(_ spec: ChildSpec) -> URLRequest {
        URLRequest(url: BenchServer.bytesURL(spec.server, spec.bytes))
    }

    /// Ours: the transfer's event stream, counting `.data` bytes.
    static func oursEvents(_ spec: ChildSpec) async throws {
        let manager = SessionManager(transport: spec.transport)
        let (status, count) = try await countEvents(manager, request(spec))
        await manager.invalidateAndCancel()
        try expect(status: status, bytes: count, spec)
    }

    /// Reads a new transfer's events to the end: its status and the body bytes counted.
    private static func countEvents(_ manager: SessionManager, _ request: URLRequest) async throws -> (status: Int, bytes: Int) {
        let handle = try await manager.dataTask(with: request)
        var count = 0
        var status = 0
        for try await event in handle.events {
            switch event {
            case .response(let response): status = response.statusCode
            case .data(let chunk): count += chunk.count
            default: break
            }
        }
        return (status, count)
    }

    /// ``oursEvents(_:)`` with the consumer on the manager's loop thread (its task executor): no
    /// thread hand-off per chunk.
    static func oursEventsOnLoop(_ spec: ChildSpec) async throws {
        let manager = SessionManager(transport: .curl)
        guard let executor = manager.taskExecutor else { throw BenchmarkError("ours-on-loop: the manager has no loop executor") }
        let request = request(spec)
        let (status, count) = try await withTaskExecutorPreference(executor) { try await countEvents(manager, request) }
        await manager.invalidateAndCancel()
        try expect(status: status, bytes: count, spec)
    }

    /// The limit: the bare libcurl loop (one easy handle), its write callback counting bytes.
    static func rawCurl(_ spec: ChildSpec) async throws {
        let client = try RawCurlClient(url: BenchServer.bytesURL(spec.server, spec.bytes), width: 1)
        try await client.run(count: 1, expectedBytes: spec.bytes)
    }

    /// Baseline: a raw delegate counting bytes on URLSession's delegate queue.
    static func rawCounting(_ spec: ChildSpec) async throws {
        let count = try await RawCountingStream.count(request(spec), configuration: Configurations.tuned())
        try expect(status: 200, bytes: count, spec)
    }

    /// Ours: `stream(for:)`, read by a ``SlowConsumer``.
    static func oursSlow(_ spec: ChildSpec) async throws {
        let manager = SessionManager(transport: spec.transport)
        let (body, response) = try await manager.stream(for: request(spec))
        var consumer = SlowConsumer()
        for try await chunk in body { await consumer.consume(chunk.count) }
        await manager.invalidateAndCancel()
        try expect(status: response.statusCode, bytes: consumer.consumed, spec)
    }

    /// Baseline: the naive raw bridge (an unbounded `AsyncThrowingStream`), read by a ``SlowConsumer``.
    static func rawSlow(_ spec: ChildSpec) async throws {
        let (stream, session) = RawUnboundedStream.stream(request(spec), configuration: Configurations.tuned())
        var consumer = SlowConsumer()
        for try await chunk in stream { await consumer.consume(chunk.count) }
        session.finishTasksAndInvalidate()
        try expect(status: 200, bytes: consumer.consumed, spec)
    }

    static func expect(status: Int, bytes: Int, _ spec: ChildSpec) throws {
        guard status == 200, bytes == spec.bytes else {
            throw BenchmarkError("\(spec.scenario.rawValue) \(spec.mode.rawValue): status \(status), \(bytes) of \(spec.bytes) bytes")
        }
    }
}
