import BenchmarkSupport
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stream-1g baseline: a raw delegate that only counts body bytes on URLSession's own delegate
/// queue — the least any streaming consumer can do.
enum RawCountingStream {
    /// Loads `request` and returns the number of body bytes received.
    static func count(_ request: URLRequest, configuration: URLSessionConfiguration) async throws -> Int {
        let delegate = CountingDelegate()
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        return try await withUnsafeThrowingContinuation { continuation in
            delegate.start(nil, continuation)
            session.dataTask(with: request).resume()
        }
    }
}

/// A raw delegate that counts the body bytes of one task on URLSession's own delegate queue and
/// resumes a continuation with the count at its end (a status other than 200 is an error).
/// Callbacks of other tasks on the session are ignored once ``start(_:_:)`` names the task
/// (mixed-load's baseline runs `data(for:)` GETs beside it); `progress` sees the bytes counted.
final class CountingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var taskIdentifier: Int?
        var continuation: UnsafeContinuation<Int, any Error>?
        var count = 0
        var status = 0

        func counts(_ task: URLSessionTask) -> Bool {
            taskIdentifier.map { $0 == task.taskIdentifier } ?? true
        }
    }

    private let state = Mutex(State())
    private let progress: MixedLoad.Progress?

    init(progress: MixedLoad.Progress? = nil) {
        self.progress = progress
    }

    /// Counts task `taskIdentifier` (nil: the session's only task) and resumes `continuation` at its end.
    func start(_ taskIdentifier: Int? = nil, _ continuation: UnsafeContinuation<Int, any Error>) {
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
        state.withLock { if $0.counts(dataTask) { $0.status = status } }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let size = data.count
        let count: Int? = state.withLock { state in
            guard state.counts(dataTask) else { return nil }
            state.count += size
            return state.count
        }
        if let count { progress?.consumedBytes.store(count, ordering: .relaxed) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished: (UnsafeContinuation<Int, any Error>?, Int, Int)? = state.withLock { state in
            guard state.counts(task) else { return nil }
            defer { state.continuation = nil }
            return (state.continuation, state.count, state.status)
        }
        guard let (continuation, count, status) = finished else { return }
        if let error {
            continuation?.resume(throwing: error)
        } else if status != 200 {
            continuation?.resume(throwing: BenchmarkError("status \(status)"))
        } else {
            continuation?.resume(returning: count)
        }
    }
}

/// The slow-consumer-1g baseline: the naive bridge from a raw delegate to async code, an
/// `AsyncThrowingStream` with an unbounded buffer. With no backpressure in URLSession on Linux,
/// everything the consumer has not read yet is held in memory.
enum RawUnboundedStream {
    /// Starts `request`; the returned stream yields body chunks until the task completes.
    static func stream(_ request: URLRequest, configuration: URLSessionConfiguration) -> (AsyncThrowingStream<Data, any Error>, URLSession) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Data.self, bufferingPolicy: .unbounded)
        let delegate = BridgingDelegate(continuation: continuation)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        session.dataTask(with: request).resume()
        return (stream, session)
    }
}

private final class BridgingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let continuation: AsyncThrowingStream<Data, any Error>.Continuation

    init(continuation: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        continuation.finish(throwing: error)
    }
}
