import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hand-off point between a transfer's producer (the ``SessionManager`` actor, fed by URLSession
/// delegate callbacks) and its one consumer (whoever iterates ``TransferEvents``).
///
/// The producer runs on the actor's queue and the consumer on any executor, so the buffer between
/// them is guarded by a mutex (``SanitizedMutex``) held only for the pure ``EventBuffer`` transitions; file I/O for
/// spilled data and continuation resumption happen outside it. A consumer with data waiting takes it
/// without any thread hop.
final class EventChannel: Sendable {
    private typealias Waiter = UnsafeContinuation<Void, Never>

    private struct State: Sendable {
        var buffer: EventBuffer<Waiter>
        var spill: SpillFile?
        /// Body bytes the consumer has taken.
        var consumed: Int64 = 0
        /// Flow control (curl): told the consumed total every ``reportStep`` bytes.
        var reporter: (@Sendable (Int64) -> Void)?
        var reportStep: Int64 = .max
        var lastReported: Int64 = 0
        /// Where the next spilled chunk is written; back to 0 once everything spilled was read.
        var spillEnd: Int64 = 0
        /// The consumer is reading a spilled range outside the lock: the file must not be rewound.
        var readingSpill = false
        /// Spill bytes below this offset were read and their blocks released.
        var releasedUpTo: Int64 = 0
    }

    /// Drained spill bytes are released (a hole punched) once this many have accumulated, and
    /// whenever the spill is fully drained.
    static let spillReleaseStep: Int64 = 4 << 20

    private let state: SanitizedMutex<State>
    private let requestCancel: @Sendable () -> Void

    /// - Parameters:
    ///   - policy: watermarks and overflow behaviour.
    ///   - requestCancel: asks the manager to cancel the transfer (called when the consumer's task is
    ///     cancelled or the consumer drops the stream while the transfer still runs).
    init(policy: BufferPolicy, requestCancel: @escaping @Sendable () -> Void) {
        state = SanitizedMutex(State(buffer: EventBuffer(policy: policy)))
        self.requestCancel = requestCancel
    }

    // MARK: Producer side (the manager's executor)

    /// Queues an event that is neither data nor progress.
    func send(_ event: TransferEvent) {
        state.withLock { $0.buffer.push(event) }.resumeAll()
    }

    /// Queues a body chunk, spilling it to disk past the high-water mark.
    /// - Returns: an error when the transfer must fail (buffer limit with `.fail`, or the spill file
    ///   could not be written).
    func send(data: Data) -> NetworkingError? {
        let action = state.withLock { $0.buffer.pushData(data) }
        switch action {
        case .queued(let waiters):
            waiters.resumeAll()
            return nil
        case .drop:
            return nil
        case .overflow(let limit):
            return NetworkingError(
                .bufferLimitExceeded(limit: limit),
                "the consumer fell more than \(limit) bytes behind and spilling to disk is off"
            )
        case .spill:
            return spill(data)
        }
    }

    private func spill(_ data: Data) -> NetworkingError? {
        // Only the producer (one serial executor) writes, so reserving the range and writing it
        // outside the lock cannot race with another writer.
        // When everything spilled so far has been read (and no read is under way), the file is
        // rewound to offset 0 and truncated, so its size follows the backlog.
        let reserved: Result<(SpillFile, Int64, Bool), NetworkingError> = state.withLock { state in
            do throws(NetworkingError) {
                let file: SpillFile
                if let existing = state.spill {
                    file = existing
                } else {
                    file = try SpillFile()
                    state.spill = file
                }
                var rewind = false
                if state.spillEnd > 0, state.buffer.spilledBytes == 0, !state.readingSpill {
                    state.spillEnd = 0
                    state.releasedUpTo = 0
                    rewind = true
                }
                let offset = state.spillEnd
                state.spillEnd += Int64(data.count)
                return .success((file, offset, rewind))
            } catch {
                return .failure(error)
            }
        }
        do throws(NetworkingError) {
            let (file, offset, rewind) = try reserved.get()
            // No reader can reach the file until pushSpilled below, so truncating here is safe.
            if rewind { file.truncate() }
            try file.write(data, at: offset)
            state.withLock { $0.buffer.pushSpilled(offset: offset, length: data.count) }.resumeAll()
            return nil
        } catch {
            return error
        }
    }

    /// Records upload or download progress (coalesced with undelivered progress).
    func send(progress: TransferProgress, upload: Bool) {
        state.withLock { $0.buffer.pushProgress(upload: upload, progress) }.resumeAll()
    }

    /// Ends the stream successfully with `.completed(metrics)`.
    func finish(_ metrics: TransferMetrics) {
        state.withLock { $0.buffer.finish(metrics) }.resumeAll()
    }

    /// Ends the stream with `error`, thrown after the events already queued.
    func fail(_ error: NetworkingError) {
        state.withLock { $0.buffer.fail(error) }.resumeAll()
    }

    /// Whether the consumer left or the stream ended.
    var isClosed: Bool { state.withLock { $0.buffer.isClosed } }

    /// The bytes the spill file occupies on disk, 0 without one (for tests and diagnostics).
    var spillAllocatedBytes: Int64 {
        state.withLock { $0.spill?.allocatedBytes ?? 0 }
    }

    /// Items queued for the consumer, events and spilled runs (for tests and diagnostics).
    var queuedCount: Int { state.withLock { $0.buffer.queuedCount } }

    /// Body bytes held in memory and in the spill file (for tests and diagnostics).
    var bufferedBytes: (memory: Int, spilled: Int64) {
        state.withLock { ($0.buffer.memoryBytes, $0.buffer.spilledBytes) }
    }

    // MARK: Consumer side (any executor)

    /// The next event, `nil` after `.completed`, or throws the transfer's error. Cancelling the
    /// calling task cancels the transfer and throws ``NetworkingError/Kind/cancelled``.
    func next() async throws(NetworkingError) -> TransferEvent? {
        while true {
            if Task.isCancelled {
                consumerLeft()
                throw NetworkingError(.cancelled, "the task iterating the transfer's events was cancelled")
            }
            let (action, spill, released, drained) = state.withLock { state in
                let action = state.buffer.next()
                if case .readSpill = action { state.readingSpill = true }
                return (action, state.spill, state.releasedUpTo, state.buffer.spilledBytes == 0)
            }
            switch action {
            case .event(let event):
                if case .data(let data) = event { didConsume(data.count) }
                return event
            case .readSpill(let offset, let length):
                guard let spill else { preconditionFailure("spilled data without a spill file") }
                let result = Result { () throws(NetworkingError) in try spill.read(at: offset, length: length) }
                // Bytes before the end of this read are never read again: free their blocks every
                // few MiB, and all of them when the spill is drained. Done while `readingSpill`
                // still holds, so the producer cannot rewind and reuse the range meanwhile.
                let end = offset + Int64(length)
                let release = drained || end - released >= Self.spillReleaseStep
                if release { spill.release(from: released, to: end) }
                state.withLock { state in
                    if release { state.releasedUpTo = end }
                    state.readingSpill = false
                }
                do {
                    let data = try result.get()
                    didConsume(data.count)
                    return .data(data)
                } catch {
                    consumerLeft()
                    throw error
                }
            case .fail(let error):
                throw error
            case .end:
                return nil
            case .suspend:
                await withTaskCancellationHandler {
                    await withUnsafeContinuation { (waiter: Waiter) in
                        state.withLock { $0.buffer.park(waiter) }?.resume()
                    }
                } onCancel: {
                    self.consumerLeft()
                }
            }
        }
    }

    // MARK: Flow control (the curl transport)

    /// Starts reporting what the consumer reads to `report` (every quarter window) and returns the
    /// window: how far the transport may deliver ahead of the consumer before it pauses the
    /// transfer's receive side. It stays under the high-water mark, so nothing spills.
    func flowControlWindow(report: @escaping @Sendable (Int64) -> Void) -> Int? {
        state.withLock { state in
            let window = max(16 << 10, state.buffer.policy.highWaterMark * 3 / 4)
            state.reporter = report
            state.reportStep = Int64(max(1, window / 4))
            state.lastReported = state.consumed
            return window
        }
    }

    /// Body bytes the consumer has read so far.
    var consumedBytes: Int64 { state.withLock { $0.consumed } }

    private func didConsume(_ count: Int) {
        let due = state.withLock { state -> (@Sendable (Int64) -> Void, Int64)? in
            state.consumed += Int64(count)
            guard let reporter = state.reporter, state.consumed - state.lastReported >= state.reportStep else { return nil }
            state.lastReported = state.consumed
            return (reporter, state.consumed)
        }
        if let (report, total) = due { report(total) }
    }

    /// The consumer is gone (cancelled, or dropped every reference to the stream): discard what is
    /// queued and cancel the transfer if it still runs.
    func consumerLeft() {
        let (waiters, wasOpen) = state.withLock { $0.buffer.consumerLeft() }
        waiters.resumeAll()
        if wasOpen { requestCancel() }
    }
}

extension Array where Element == UnsafeContinuation<Void, Never> {
    /// Resumes every parked consumer.
    func resumeAll() { for waiter in self { waiter.resume() } }
}
