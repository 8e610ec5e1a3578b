import BenchmarkSupport
import AsyncNetworking
import Foundation
import LoopbackServer
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `benchmarks --trace stream-1g|slow-consumer-1g|download-1g [--quick] [--trace-raw MODE]`: one
/// transfer against an in-process LoopbackServer, with a timeline every 100 ms of the process's
/// RSS, the URLSession delegate operations queued and not yet run (each `didReceive data` holds its
/// chunk inside FoundationNetworking until it runs), and the bytes the consumer has read.
/// A diagnostic for memory growth, not a benchmark.
enum Trace {
    /// Counters the sampler thread reads while the transfer runs.
    final class Counters: Sendable {
        let consumedBytes = Atomic<Int>(0)
        let done = Atomic<Bool>(false)
    }

    @concurrent
    static func run(_ scenario: Scenario, rawMode: String?, options: Options) async throws {
        if scenario == .mixedLoad { return try await mixedLoad(raw: rawMode != nil, options: options) }
        guard scenario == .stream1g || scenario == .slowConsumer1g || scenario == .download1g else {
            throw BenchmarkError("--trace supports stream-1g, slow-consumer-1g and download-1g")
        }
        let server = try LoopbackServer()
        defer { server.stop() }
        let bytes = options.bigBytes
        let request = URLRequest(url: server.url("/bytes/\(bytes)"))
        let counters = Counters()
        let manager = rawMode == nil ? SessionManager() : nil
        let raw = rawMode.map { RawSpill(spill: $0 == "raw-spill") }
        // On curl no URLSession callback is queued: an idle queue stands in.
        guard let delegateQueue = manager.map({ $0.urlSession?.delegateQueue ?? OperationQueue() }) ?? raw?.session.delegateQueue else { return }
        let start = ContinuousClock.now
        let sampler = Thread {
            print("   t s   RSS MiB   delegate ops queued   consumer read MB")
            var maxQueued = 0
            while !counters.done.load(ordering: .relaxed) {
                // Each queued operation is a URLSession callback not yet run: for a body, a
                // `didReceive data` holding its chunk (up to 16 KiB) in FoundationNetworking.
                let queued = delegateQueue.operationCount
                maxQueued = max(maxQueued, queued)
                print(String(
                    format: "%5.1f  %8.1f  %20d  %17.0f",
                    Measure.seconds(ContinuousClock.now - start), Double(Measure.currentRSSKiB()) / 1024,
                    queued, Double(counters.consumedBytes.load(ordering: .relaxed)) / 1e6
                ))
                Thread.sleep(forTimeInterval: 0.1)
            }
            print("most delegate operations queued at a sample: \(maxQueued) (up to \(maxQueued * 16 / 1024) MiB of chunks)")
        }
        sampler.start()
        var delegateDone = 0.0
        if let raw {
            delegateDone = try await raw.run(request)
        } else if let manager, scenario == .download1g {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("bench-trace-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let started = ContinuousClock.now
            _ = try await manager.download(for: request, to: .file(file))
            delegateDone = Measure.seconds(ContinuousClock.now - started)
            await manager.invalidateAndCancel()
        } else if let manager {
            let handle = try await manager.dataTask(with: request)
            var consumer = SlowConsumer()
            var count = 0
            for try await event in handle.events {
                switch event {
                case .data(let chunk):
                    count += chunk.count
                    counters.consumedBytes.store(count, ordering: .relaxed)
                    if scenario == .slowConsumer1g { await consumer.consume(chunk.count) }
                case .completed(let metrics):
                    delegateDone = Measure.seconds(metrics.duration)
                default:
                    break
                }
            }
            await manager.invalidateAndCancel()
        }
        counters.done.store(true, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(150))
        print(String(
            format: "the delegate queue saw the last byte at %.2f s; done at %.2f s; peak RSS %.1f MiB",
            delegateDone, Measure.seconds(ContinuousClock.now - start), Double(Measure.peakRSSKiB()) / 1024
        ))
    }
}

extension Trace {
    /// `--trace mixed-load`: one mixed-load child flow (ours, or the raw baseline with
    /// `--trace-raw`) in this process, with a timeline every 100 ms of RSS, the phase, the stream
    /// bytes read, and the GETs done with the latest and slowest latency of the phase.
    static func mixedLoad(raw: Bool, options: Options) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let progress = MixedLoad.Progress()
        let done = Atomic<Bool>(false)
        let spec = ChildSpec(
            scenario: .mixedLoad, mode: raw ? .baseline : .ours, server: server.baseURL, bytes: options.bigBytes,
            workdir: FileManager.default.temporaryDirectory, result: FileManager.default.temporaryDirectory
        )
        let start = ContinuousClock.now
        let sampler = Thread { [progress] in
            print("   t s   RSS MiB  phase  stream read MB  GETs  last GET ms  slowest ms")
            let phases = ["warm", "quiet", "busy", "drain"]
            while !done.load(ordering: .relaxed) {
                print(String(
                    format: "%5.1f  %8.1f  %5@  %14.0f  %4d  %11.2f  %10.2f",
                    Measure.seconds(ContinuousClock.now - start), Double(Measure.currentRSSKiB()) / 1024,
                    phases[progress.phase.load(ordering: .relaxed)],
                    Double(progress.consumedBytes.load(ordering: .relaxed)) / 1e6,
                    progress.getsDone.load(ordering: .relaxed),
                    Double(progress.lastLatency.load(ordering: .relaxed)) / 1e3,
                    Double(progress.phaseMaxLatency.load(ordering: .relaxed)) / 1e3
                ))
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        sampler.start()
        let figures = try await MixedLoadVariants.child(spec, progress: progress)
        done.store(true, ordering: .relaxed)
        try await Task.sleep(for: .milliseconds(150))
        print(String(
            format: "quiet p50/p99 %.2f/%.2f ms, busy p50/p99 %.2f/%.2f ms (max %.1f), %d busy GETs (%d ended before the stream), stream %.0f MB/s; peak RSS %.1f MiB",
            figures.quietP50, figures.quietP99, figures.busyP50, figures.busyP99, figures.busyMax,
            figures.gets, figures.getsDuringStream, figures.streamMegabytesPerSecond, Double(Measure.peakRSSKiB()) / 1024
        ))
    }
}

/// `--trace-raw raw-spill|raw-count`: the same transfer on a raw delegate that does only what our
/// delegate queue does per chunk when spilling (a 16 KiB `pwrite` to an unlinked file), or nothing
/// but counting — to tell FoundationNetworking's own backlog from ours.
final class RawSpill: Sendable {
    let session: URLSession
    private let delegate: SpillDelegate

    init(spill: Bool) {
        delegate = SpillDelegate(spill: spill)
        session = URLSession(configuration: Configurations.tuned(), delegate: delegate, delegateQueue: nil)
    }

    /// Loads `request`; returns the seconds until the delegate saw the end.
    func run(_ request: URLRequest) async throws -> Double {
        defer { session.finishTasksAndInvalidate() }
        let start = ContinuousClock.now
        try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
            delegate.continuation.withLock { $0 = continuation }
            session.dataTask(with: request).resume()
        }
        return Measure.seconds(ContinuousClock.now - start)
    }

    private final class SpillDelegate: NSObject, URLSessionDataDelegate, Sendable {
        let continuation = Mutex<UnsafeContinuation<Void, any Error>?>(nil)
        let offset = Atomic<Int>(0)
        let descriptor: Int32

        init(spill: Bool) {
            var template = Array((NSTemporaryDirectory() + "/bench-spill-XXXXXX").utf8CString)
            descriptor = spill ? template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) } : -1
            if descriptor >= 0 { template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) } }
        }

        deinit { if descriptor >= 0 { close(descriptor) } }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let at = offset.add(data.count, ordering: .relaxed).oldValue
            guard descriptor >= 0 else { return }
            _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress!, $0.count, off_t(at)) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let continuation = continuation.withLock { value in defer { value = nil }; return value }
            if let error { continuation?.resume(throwing: error) } else { continuation?.resume() }
        }
    }
}
