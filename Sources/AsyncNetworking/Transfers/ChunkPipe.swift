import Foundation
import Dispatch
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A bounded hand-off from an `AsyncSequence` of chunks (the producer, a task) to URLSession's body
/// reader (the consumer, a libcurl thread that must be answered synchronously).
///
/// FoundationNetworking reads a streamed body with a blocking `InputStream.read` and has no way to
/// say "not yet", so ``read(into:)`` blocks its thread until the producer delivers, the body ends,
/// or ``stallTimeout`` passes. At most ``highWater`` bytes wait in memory: the producer is suspended
/// (not blocked) past it.
final class ChunkPipe: Sendable {
    private struct State {
        var chunks: [Data] = []
        var headOffset = 0
        var buffered = 0
        var finished = false
        var failure: NetworkingError?
        var cancelled = false
        var readerWaiting = false
        var producerWaiter: UnsafeContinuation<Void, Never>?
        var producer: Task<Void, Never>?
        var started = false
    }

    private enum ReadStep {
        case copied(Int, UnsafeContinuation<Void, Never>?)
        case end
        case failed
        case wait
    }

    private let state = Mutex(State())
    private let readable = DispatchSemaphore(value: 0)
    private let produce: @Sendable (ChunkPipe) async -> Void
    /// Bytes buffered before the producer waits. Default 1 MiB.
    let highWater: Int
    /// How long the reader waits for the producer before failing the body.
    let stallTimeout: TimeInterval

    /// - Parameter produce: pushes every chunk with ``push(_:)``, then calls ``finish(_:)``.
    init(highWater: Int = 1 << 20, stallTimeout: TimeInterval, produce: @escaping @Sendable (ChunkPipe) async -> Void) {
        self.highWater = highWater
        self.stallTimeout = stallTimeout > 0 ? stallTimeout : 60
        self.produce = produce
    }

    /// The body's own failure (the sequence threw, or stalled), if any.
    var failure: NetworkingError? { state.withLock { $0.failure } }

    /// Whether a read may still return bytes or an error (`false` only after a clean end).
    var hasBytesAvailable: Bool {
        state.withLock { $0.cancelled || $0.failure != nil || !($0.finished && $0.chunks.isEmpty) }
    }

    /// Starts the producer task (once; when URLSession opens the body).
    func start() {
        let shouldStart = state.withLock { state -> Bool in
            guard !state.started, !state.cancelled else { return false }
            state.started = true
            return true
        }
        guard shouldStart else { return }
        let task = Task { await produce(self) }
        let cancelNow = state.withLock { state -> Bool in
            state.producer = task
            return state.cancelled
        }
        if cancelNow { task.cancel() }
    }

    // MARK: Producer

    /// Queues a chunk; suspends while ``highWater`` bytes wait. Returns `false` once the body was
    /// cancelled (stop producing).
    func push(_ data: Data) async -> Bool {
        guard !data.isEmpty else { return true }
        let (wake, full, stop) = state.withLock { state -> (Bool, Bool, Bool) in
            if state.cancelled || state.finished { return (false, false, true) }
            state.chunks.append(data)
            state.buffered += data.count
            let wake = state.readerWaiting
            state.readerWaiting = false
            return (wake, state.buffered >= highWater, false)
        }
        if stop { return false }
        if wake { readable.signal() }
        if full {
            await withUnsafeContinuation { (waiter: UnsafeContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.cancelled || state.buffered < highWater { return true }
                    state.producerWaiter = waiter
                    return false
                }
                if resumeNow { waiter.resume() }
            }
        }
        return state.withLock { !$0.cancelled }
    }

    /// Ends the body: cleanly, or with `failure` (the reader then reports an error).
    func finish(_ failure: NetworkingError?) {
        let wake = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.finished = true
            state.failure = failure
            let wake = state.readerWaiting
            state.readerWaiting = false
            return wake
        }
        if wake { readable.signal() }
    }

    // MARK: Consumer (URLSession's thread)

    /// Copies up to `buffer.count` bytes: the count, 0 at the clean end, -1 on failure or
    /// cancellation. Blocks while the producer has nothing ready.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let deadline = DispatchTime.now() + stallTimeout
        while true {
            let step = state.withLock { state -> ReadStep in
                if state.cancelled || state.failure != nil { return .failed }
                if let chunk = state.chunks.first {
                    let start = chunk.startIndex + state.headOffset
                    let count = min(buffer.count, chunk.endIndex - start)
                    chunk.copyBytes(to: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]), from: start..<(start + count))
                    state.headOffset += count
                    if start + count == chunk.endIndex {
                        state.chunks.removeFirst()
                        state.headOffset = 0
                    }
                    state.buffered -= count
                    var waiter: UnsafeContinuation<Void, Never>?
                    if state.buffered < highWater {
                        waiter = state.producerWaiter
                        state.producerWaiter = nil
                    }
                    return .copied(count, waiter)
                }
                if state.finished { return .end }
                state.readerWaiting = true
                return .wait
            }
            switch step {
            case .copied(let count, let waiter):
                waiter?.resume()
                return count
            case .end:
                return 0
            case .failed:
                return -1
            case .wait:
                if readable.wait(timeout: deadline) == .timedOut, stall() { return -1 }
            }
        }
    }

    /// The producer delivered nothing in time: fail the body and stop the producer.
    private func stall() -> Bool {
        let (stalled, producer) = state.withLock { state -> (Bool, Task<Void, Never>?) in
            state.readerWaiting = false
            guard state.chunks.isEmpty, !state.finished, !state.cancelled else { return (false, nil) }
            state.finished = true
            state.failure = NetworkingError(
                .requestSerializationFailed,
                "the upload body sequence produced nothing for \(Int(stallTimeout)) s (the request's timeout)"
            )
            return (true, state.producer)
        }
        producer?.cancel()
        return stalled
    }

    /// Stops everything: the producer task is cancelled and a blocked read returns -1. Idempotent.
    func cancel() {
        let (waiter, producer, wake) = state.withLock { state -> (UnsafeContinuation<Void, Never>?, Task<Void, Never>?, Bool) in
            state.cancelled = true
            state.chunks = []
            state.buffered = 0
            let waiter = state.producerWaiter
            state.producerWaiter = nil
            let wake = state.readerWaiting
            state.readerWaiting = false
            return (waiter, state.producer, wake)
        }
        waiter?.resume()
        producer?.cancel()
        if wake { readable.signal() }
    }
}
