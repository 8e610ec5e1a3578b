import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Progress of a pipeline request's current attempt, for ``HTTPClient/send(_:decoder:progress:)``.
public enum RequestProgress: Sendable {
    /// Bytes of the body sent in this attempt.
    case upload(TransferProgress, attempt: Int)
    /// Bytes of the response received in this attempt.
    case download(TransferProgress, attempt: Int)
}

/// The result of one attempt: the body, the final response, the metrics.
typealias AttemptResult = Result<(data: Data, response: HTTPURLResponse, metrics: TransferMetrics), NetworkingError>

/// One attempt: ``HTTPClient/exchange(_:)`` (the single-attempt primitive), with progress
/// reported and an overall deadline enforced around it.
extension HTTPClient {
    /// Runs one attempt; never throws (the failure is the result). With a `deadline`, an attempt
    /// still running then is cancelled and fails with `.transport(.timedOut)`.
    func runAttempt(
        _ request: URLRequest, attempt: Int, deadline: ContinuousClock.Instant?,
        progress: (@Sendable (RequestProgress) -> Void)?
    ) async -> AttemptResult {
        guard let deadline else { return await attemptOnce(request, attempt: attempt, progress: progress) }
        return await withTaskGroup(of: AttemptResult?.self) { group in
            group.addTask { await self.attemptOnce(request, attempt: attempt, progress: progress) }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            if case .some(.some(let result)) = await group.next() {
                group.cancelAll()
                return result
            }
            // The deadline passed, or the caller cancelled (which ends the sleep too).
            group.cancelAll()
            var finished: AttemptResult?
            while let next = await group.next() { if let next { finished = next } }
            if case .success = finished { return finished! }
            if Task.isCancelled, let finished { return finished }
            return .failure(NetworkingError(
                .transport(.timedOut), "the request's overall deadline passed during attempt \(attempt)", request: request
            ))
        }
    }

    private func attemptOnce(
        _ request: URLRequest, attempt: Int, progress: (@Sendable (RequestProgress) -> Void)?
    ) async -> AttemptResult {
        let observe = progress.map { report in
            { (event: TransferEvent) in
                switch event {
                case .uploadProgress(let sent): report(.upload(sent, attempt: attempt))
                case .downloadProgress(let received): report(.download(received, attempt: attempt))
                default: break
                }
            }
        }
        do throws(NetworkingError) {
            let (data, response, metrics) = try await exchange(request, progress: observe)
            return .success((data, response, metrics))
        } catch {
            return .failure(error)
        }
    }
}
