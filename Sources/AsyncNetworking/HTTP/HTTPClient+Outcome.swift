import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a client call makes the session-wide completion event carry the outcome its caller saw
/// (``CompletionHold``; issue 20 item 10).
///
/// - Awaiting calls (the verbs, `request`, ``send(_:serializer:)``): the call runs with a hold as
///   a task-local value; every transfer its exchange starts is held, and the call settles the hold
///   with its result — the last transfer's event gets the call's error or serialized value.
/// - ``HTTPTask`` calls (`task`, `uploadTask`, `multipartTask`, `downloadTask` and the awaiting
///   forms built on them): the transfer's options carry the hold; the task settles it when its
///   value is made.
/// - ``send(_:serializer:progress:)`` of a ``Request``: one hold per attempt; each attempt's
///   event carries that attempt's outcome after pre-processing, validation and serialization (a
///   `503` that is then retried is reported as `unacceptableStatusCode(503)`), so the last
///   attempt's event carries what the caller got.
extension HTTPClient {
    /// Runs `body` with a completion hold and settles it with the outcome.
    func reportingOutcome<Output: Sendable>(
        _ body: () async throws(NetworkingError) -> HTTPResponse<Output>
    ) async throws(NetworkingError) -> HTTPResponse<Output> {
        let hold = CompletionHold()
        let result: Result<HTTPResponse<Output>, NetworkingError> = await CompletionHold.$current.withValue(hold) {
            do throws(NetworkingError) { return .success(try await body()) } catch { return .failure(error) }
        }
        switch result {
        case .success(let response): hold.settle(nil, value: response.value)
        case .failure(let error): hold.settle(error, value: nil)
        }
        return try result.get()
    }
}

extension TransferOptions {
    /// These options with a new completion hold, for a transfer behind an ``HTTPTask``.
    func holdingCompletion() -> (TransferOptions, CompletionHold) {
        var options = self
        let hold = CompletionHold()
        options.completionHold = hold
        return (options, hold)
    }
}
