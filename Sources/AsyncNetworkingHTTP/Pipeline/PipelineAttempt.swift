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
/// reported and the call's deadline enforced around it.
extension HTTPClient {
    /// Runs one attempt; never throws (the failure is the result). With a `deadline`, an attempt
    /// still running then is cancelled and fails with ``NetworkingError/Kind/deadlineExceeded``
    /// (its transfer carries the deadline too, so it ends with that error on the manager's side;
    /// a coalesced wait, whose shared transfer has no deadline, is ended here).
    func runAttempt(
        _ request: URLRequest, attempt: Int, deadline: ContinuousClock.Instant?,
        progress: (@Sendable (RequestProgress) -> Void)?
    ) async -> AttemptResult {
        do throws(NetworkingError) {
            let answer = try await DeadlineRace.run(until: deadline, phrase: "the call's", request: request) {
                () async throws(NetworkingError) in
                try await self.attemptOnce(request, attempt: attempt, progress: progress).get()
            }
            return .success(answer)
        } catch {
            return .failure(error)
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
