import AsyncNetworking
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// mixed-load: one session streams a 1 GiB body, consumed at once, while the same session makes
/// sequential small GETs. Measured in a child process per contender (its own `VmHWM`):
///
/// 1. warm-up, then the quiet baseline: ``getCount`` sequential small GETs with nothing else
///    running, each latency recorded;
/// 2. on the same session, the stream starts (a task reading every chunk as it arrives) and up to
///    ``getCount`` sequential small GETs run meanwhile, each latency recorded. No GET starts once
///    the stream has ended: a GET that starts after it is a quiet one again, and would only dilute
///    the busy figures (one GET stuck behind the stream for seconds, then 290 fast ones, has a
///    "p99" of a few ms). So when the stream ends first there are fewer busy samples
///    (``MixedLoadFigures/gets``), and with fewer than 100 the p99 is their maximum;
/// 3. the stream is awaited to its end; its MB/s runs from the start of the request to the last byte.
enum MixedLoad {
    /// Small GETs of the quiet phase, and the most of the busy phase.
    static let getCount = 300
    /// Unmeasured GETs first (open the connection, fault in code paths).
    static let warmUpCount = 20

    /// What the sampler of `--trace mixed-load` reads while the child flow runs.
    final class Progress: Sendable {
        let consumedBytes = Atomic<Int>(0)
        let getsDone = Atomic<Int>(0)
        /// The latest GET's latency, µs.
        let lastLatency = Atomic<Int>(0)
        /// The slowest GET of the current phase, µs.
        let phaseMaxLatency = Atomic<Int>(0)
        /// 0 warm-up, 1 quiet, 2 busy, 3 draining the stream.
        let phase = Atomic<Int>(0)
        let streamDone = Atomic<Bool>(false)

        func enter(_ phase: Int) {
            self.phase.store(phase, ordering: .relaxed)
            getsDone.store(0, ordering: .relaxed)
            phaseMaxLatency.store(0, ordering: .relaxed)
        }

        func recordGet(_ seconds: Double) {
            let micros = Int(seconds * 1e6)
            getsDone.add(1, ordering: .relaxed)
            lastLatency.store(micros, ordering: .relaxed)
            phaseMaxLatency.max(micros, ordering: .relaxed)
        }
    }

    /// The child side: one contender, once.
    static func child(_ spec: ChildSpec, progress: Progress = Progress()) async throws -> MixedLoadFigures {
        let big = URLRequest(url: BenchServer.bytesURL(spec.server, spec.bytes))
        switch spec.mode {
        case .ours, .oursURLSession:
            let manager = SessionManager(transport: spec.transport)
            let figures = try await measure(spec, progress: progress, client: .ours(manager)) {
                let (body, response) = try await manager.stream(for: big)
                guard response.statusCode == 200 else { throw BenchmarkError("mixed-load ours: status \(response.statusCode)") }
                var count = 0
                for try await chunk in body {
                    count += chunk.count
                    progress.consumedBytes.store(count, ordering: .relaxed)
                }
                return count
            }
            await manager.invalidateAndCancel()
            return figures
        case .baseline:
            let delegate = MixedStreamDelegate(progress: progress)
            let session = URLSession(configuration: Configurations.tuned(), delegate: delegate, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            return try await measure(spec, progress: progress, client: .rawAsync(session)) {
                try await withUnsafeThrowingContinuation { continuation in
                    let task = session.dataTask(with: big)
                    delegate.start(task.taskIdentifier, continuation)
                    task.resume()
                }
            }
        case .rawCurl:
            return try await RawCurlMixedLoad.run(spec)
        }
    }

    /// The two phases around `stream`, which loads the big body and returns its byte count.
    private static func measure(
        _ spec: ChildSpec, progress: Progress, client: SmallClient,
        stream: @escaping @Sendable () async throws -> Int
    ) async throws -> MixedLoadFigures {
        let small = URLRequest(url: BenchServer.bytesURL(spec.server, BenchServer.smallBytes))
        func get() async throws -> Double {
            let start = ContinuousClock.now
            try await client.get(small, expectedBytes: BenchServer.smallBytes)
            let seconds = Measure.seconds(ContinuousClock.now - start)
            progress.recordGet(seconds)
            return seconds
        }
        for _ in 0..<warmUpCount { _ = try await get() }

        progress.enter(1)
        var quiet: [Double] = []
        for _ in 0..<getCount { quiet.append(try await get() * 1e3) }

        progress.enter(2)
        let streamStart = ContinuousClock.now
        let streaming = Task { () throws -> (bytes: Int, seconds: Double) in
            let bytes = try await stream()
            progress.streamDone.store(true, ordering: .relaxed)
            return (bytes, Measure.seconds(ContinuousClock.now - streamStart))
        }
        var busy: [Double] = []
        var duringStream = 0
        do {
            repeat {
                busy.append(try await get() * 1e3)
                if !progress.streamDone.load(ordering: .relaxed) { duringStream += 1 }
            } while busy.count < getCount && !progress.streamDone.load(ordering: .relaxed)
        } catch {
            streaming.cancel()
            throw error
        }
        progress.enter(3)
        let (bytes, seconds) = try await streaming.value
        guard bytes == spec.bytes else {
            throw BenchmarkError("mixed-load \(spec.mode.rawValue): \(bytes) of \(spec.bytes) bytes")
        }
        return MixedLoadFigures(
            quietP50: Measure.percentile(quiet, 50), quietP99: Measure.percentile(quiet, 99),
            busyP50: Measure.percentile(busy, 50), busyP99: Measure.percentile(busy, 99),
            busyMax: busy.max() ?? 0, gets: busy.count, getsDuringStream: duringStream,
            streamSeconds: seconds, streamMegabytesPerSecond: Measure.megabytesPerSecond(bytes, seconds: seconds)
        )
    }
}

/// One contender's mixed-load figures from one child process (latencies in ms).
struct MixedLoadFigures: Codable, Sendable {
    var quietP50: Double
    var quietP99: Double
    var busyP50: Double
    var busyP99: Double
    var busyMax: Double
    /// Busy GETs made: ``MixedLoad/getCount``, or fewer when the stream ended first.
    var gets: Int
    /// Busy GETs that also ended before the stream did (the last one may end after it).
    var getsDuringStream: Int
    var streamSeconds: Double
    var streamMegabytesPerSecond: Double

    /// Busy p99 / quiet p99: the latency target is ≤ 3.
    var p99Ratio: Double { busyP99 / max(quietP99, 1e-9) }
}

/// The mixed-load baseline's stream: a raw delegate counting the body bytes of one task on
/// URLSession's own delegate queue (stream-1g's baseline), on a session whose `data(for:)` GETs run
/// beside it. Callbacks of other tasks are ignored.
private final class MixedStreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var taskIdentifier = -1
        var continuation: UnsafeContinuation<Int, any Error>?
        var count = 0
        var status = 0
    }

    private let state = Mutex(State())
    private let progress: MixedLoad.Progress

    init(progress: MixedLoad.Progress) {
        self.progress = progress
    }

    func start(_ taskIdentifier: Int, _ continuation: UnsafeContinuation<Int, any Error>) {
        state.withLock {
            $0.taskIdentifier = taskIdentifier
            $0.continuation = continuation
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        state.withLock { if $0.taskIdentifier == dataTask.taskIdentifier { $0.status = status } }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let size = data.count
        let count: Int? = state.withLock { state in
            guard state.taskIdentifier == dataTask.taskIdentifier else { return nil }
            state.count += size
            return state.count
        }
        if let count { progress.consumedBytes.store(count, ordering: .relaxed) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished: (UnsafeContinuation<Int, any Error>?, Int, Int)? = state.withLock { state in
            guard state.taskIdentifier == task.taskIdentifier else { return nil }
            defer { state.continuation = nil }
            return (state.continuation, state.count, state.status)
        }
        guard let (continuation, count, status) = finished else { return }
        if let error {
            continuation?.resume(throwing: error)
        } else if status != 200 {
            continuation?.resume(throwing: BenchmarkError("mixed-load baseline: status \(status)"))
        } else {
            continuation?.resume(returning: count)
        }
    }
}
