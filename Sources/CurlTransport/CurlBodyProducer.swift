import Synchronization

/// What one call of ``CurlBodyProducer/read(into:)`` produced.
package enum CurlBodyRead: Sendable, Equatable {
    /// This many bytes (at least 1) were written to the start of the buffer.
    case bytes(Int)
    /// Nothing yet: the transfer's send side pauses (`CURL_READFUNC_PAUSE`) until someone calls
    /// ``CurlMultiLoop/resumeSending(_:)``.
    case wouldBlock
    /// The body is complete.
    case end
    /// The body cannot be completed; the transfer fails with `CURLE_READ_ERROR` and this message.
    case failed(String)
}

/// A pull-based request body. ``read(into:)`` is called on the loop thread whenever curl wants
/// bytes; it must not block (answer ``CurlBodyRead/wouldBlock`` instead and resume the transfer's
/// send side once bytes are available).
package protocol CurlBodyProducer: AnyObject, Sendable {
    /// Fills a prefix of `buffer` (never empty).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> CurlBodyRead
    /// Trailer fields to send after the body (asked once, after ``read(into:)`` answered
    /// ``CurlBodyRead/end``, for a request with ``CurlRequest/sendsTrailers``). Default: none.
    func trailerFields() -> [(name: String, value: String)]
}

extension CurlBodyProducer {
    package func trailerFields() -> [(name: String, value: String)] { [] }
}

/// A ready-made producer: other threads ``write(_:)`` chunks and ``finish(failure:)``; the loop
/// thread reads them. Each write or finish calls the `readable` closure given to ``init(readable:)``
/// (typically `{ loop.resumeSending(id) }`), so a paused send side wakes up.
///
/// Memory: chunks are held until sent; a writer that must stay bounded checks ``bufferedBytes``.
/// What they cost stays close to their bytes however small the writes: a chunk is appended to the
/// last buffered one while that holds less than ``joinedChunkSize`` bytes, so a body sequence of
/// 1-byte elements does not cost an array (about 50 bytes) per byte.
package final class CurlBodyPipe: CurlBodyProducer {
    /// The size below which the last buffered chunk takes the next write.
    static let joinedChunkSize = 16 << 10

    private struct State: Sendable {
        var chunks: [[UInt8]] = []
        var offsetInFirst = 0
        var buffered = 0
        var finished = false
        var failure: String?
        var readable: (@Sendable () -> Void)?
        /// A writer waiting for ``buffered`` to drop below `limit` (``waitForRoom(below:)``).
        var roomWaiter: (limit: Int, continuation: CheckedContinuation<Void, Never>)?
        /// Closed by the reader's side: writers stop waiting and writes are dropped.
        var closed = false
        /// Trailer fields set by the writer before ``finish(failure:)``.
        var trailers: [(name: String, value: String)] = []
    }

    private let state = SanitizedMutex(State())

    package init() {}

    /// Sets the closure called after each write and at finish (replacing any earlier one).
    package func onReadable(_ readable: @escaping @Sendable () -> Void) {
        state.withLock { $0.readable = readable }
    }

    /// Bytes written and not yet read.
    var bufferedBytes: Int { state.withLock { $0.buffered } }

    /// Chunks buffered (for tests and diagnostics).
    var bufferedChunkCount: Int { state.withLock { $0.chunks.count } }

    /// Appends a chunk (ignored after ``finish(failure:)``).
    package func write(_ bytes: some Sequence<UInt8>) {
        let chunk = Array(bytes)
        let readable = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished, !state.closed, !chunk.isEmpty else { return nil }
            if let last = state.chunks.indices.last, state.chunks[last].count < Self.joinedChunkSize {
                state.chunks[last].append(contentsOf: chunk)
            } else {
                state.chunks.append(chunk)
            }
            state.buffered += chunk.count
            return state.readable
        }
        readable?()
    }

    /// Suspends until fewer than `limit` bytes are buffered (the loop has sent the rest), the pipe
    /// is closed, or the calling task is cancelled: a producer that waits here before each write
    /// is held back by the connection, and memory stays bounded by `limit` plus one chunk.
    /// One waiter at a time.
    package func waitForRoom(below limit: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.closed || state.buffered < limit || Task.isCancelled { return true }
                    state.roomWaiter = (limit, continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state in
                let waiter = state.roomWaiter
                state.roomWaiter = nil
                return waiter
            }?.continuation.resume()
        }
    }

    /// Closes the pipe from the reader's side (the attempt ended): a waiting writer resumes, and
    /// later writes are dropped.
    package func close() {
        state.withLock { state in
            state.closed = true
            state.finished = true
            state.chunks = []
            state.buffered = 0
            let waiter = state.roomWaiter
            state.roomWaiter = nil
            return waiter
        }?.continuation.resume()
    }

    /// Sets the trailer fields sent after the body (call before ``finish(failure:)``).
    package func setTrailers(_ fields: [(name: String, value: String)]) {
        state.withLock { $0.trailers = fields }
    }

    package func trailerFields() -> [(name: String, value: String)] {
        state.withLock { $0.trailers }
    }

    /// Ends the body: after the buffered bytes, with success (`failure` nil) or a read error.
    package func finish(failure: String? = nil) {
        let readable = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.failure = failure
            return state.readable
        }
        readable?()
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) -> CurlBodyRead {
        state.withLock { state in
            var written = 0
            while written < buffer.count, !state.chunks.isEmpty {
                let first = state.chunks[0]
                let count = min(buffer.count - written, first.count - state.offsetInFirst)
                first.withUnsafeBytes { source in
                    let slice = UnsafeRawBufferPointer(rebasing: source[state.offsetInFirst..<(state.offsetInFirst + count)])
                    UnsafeMutableRawBufferPointer(rebasing: buffer[written...]).copyMemory(from: slice)
                }
                written += count
                state.offsetInFirst += count
                if state.offsetInFirst == first.count {
                    state.chunks.removeFirst()
                    state.offsetInFirst = 0
                }
            }
            state.buffered -= written
            if written > 0 {
                if let waiter = state.roomWaiter, state.buffered < waiter.limit {
                    state.roomWaiter = nil
                    waiter.continuation.resume()
                }
                return .bytes(written)
            }
            if state.finished { return state.failure.map { .failed($0) } ?? .end }
            return .wouldBlock
        }
    }
}
