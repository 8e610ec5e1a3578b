import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Collects the progress of a batch's members (each reporting from its own child task) and
/// publishes the aggregate to the caller's stream after every change.
actor BatchProgressTracker {
    private var state: BatchProgressState
    private let continuation: AsyncStream<BatchProgress>.Continuation

    /// Publishes the starting value (nothing done, `count` members) at once.
    init(count: Int, continuation: AsyncStream<BatchProgress>.Continuation) {
        let state = BatchProgressState(count: count)
        self.state = state
        self.continuation = continuation
        continuation.yield(state.snapshot)
    }

    func upload(_ index: Int, _ progress: TransferProgress) {
        state.upload(index, progress)
        publish()
    }

    func response(_ index: Int, expectedBytes: Int64?) {
        state.response(index, expectedBytes: expectedBytes)
        publish()
    }

    func download(_ index: Int, _ progress: TransferProgress) {
        state.download(index, progress)
        publish()
    }

    func finish(_ index: Int, failed: Bool, sent: Int64? = nil, received: Int64? = nil) {
        state.finish(index, failed: failed, sent: sent, received: received)
        publish()
    }

    /// Publishes the final value and finishes the stream; called once, when the batch returns.
    func close() {
        publish()
        continuation.finish()
    }

    private func publish() {
        continuation.yield(state.snapshot)
    }
}

extension SessionManager {
    /// One member of a batch that reports progress: a data transfer read through its
    /// ``TransferHandle`` events, whose progress, response and end feed `tracker`.
    ///
    /// Cancelling the calling task cancels the transfer (through its event stream) and throws
    /// ``NetworkingError/Kind/cancelled``.
    nonisolated func trackedData(
        for request: URLRequest, options: TransferOptions, member index: Int, tracker: BatchProgressTracker
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse) {
        do {
            let (body, response, metrics) = try await readTracked(request, options: options, member: index, tracker: tracker)
            await tracker.finish(index, failed: false, sent: metrics.bytesSent, received: Int64(body.count))
            return (body, response)
        } catch {
            await tracker.finish(index, failed: true)
            throw error
        }
    }

    private nonisolated func readTracked(
        _ request: URLRequest, options: TransferOptions, member index: Int, tracker: BatchProgressTracker
    ) async throws(NetworkingError) -> (Data, HTTPURLResponse, TransferMetrics) {
        if Task.isCancelled {
            throw NetworkingError(.cancelled, "the calling task was already cancelled", request: request)
        }
        let handle = try await dataTask(with: request, options: options)
        var events = handle.events.makeAsyncIterator()
        var body = Data()
        var response: HTTPURLResponse?
        while let event = try await events.next() {
            switch event {
            case .uploadProgress(let progress):
                await tracker.upload(index, progress)
            case .response(let received):
                response = received
                body = Data()
                let expected = TransferState.expectedBodyLength(of: received)
                if let expected, expected > 0 { body.reserveCapacity(Int(min(expected, 64 << 20))) }
                await tracker.response(index, expectedBytes: expected)
            case .data(let chunk):
                body.append(chunk)
            case .downloadProgress(let progress):
                await tracker.download(index, progress)
            case .downloaded, .trailers:
                break // the trailers are in the metrics too
            case .completed(let metrics):
                guard let response else {
                    throw NetworkingError(.transport(.badServerResponse), "the transfer ended without an HTTP response", request: request)
                }
                return (body, response, metrics)
            }
        }
        throw NetworkingError(.transport(.badServerResponse), "the event stream ended without completing", request: request)
    }
}
