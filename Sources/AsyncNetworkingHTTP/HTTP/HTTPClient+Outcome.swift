import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a client call makes the session-wide completion event carry the outcome its caller saw
/// (``CompletionHold``; issue 20 item 10).
///
/// - Awaiting calls (the verbs, `request`, ``send(_:serializer:)`` and
///   ``send(_:serializer:progress:)`` of a ``Request``) run the pipeline: one hold per attempt; each
///   attempt's event carries that attempt's outcome after pre-processing, validation and
///   serialization (a `503` that is then retried is reported as `unacceptableStatusCode(503)`, a
///   `401` answered with ``credential`` as `unacceptableStatusCode(401)`), so the last attempt's
///   event carries what the caller got.
/// - ``HTTPTask`` calls (`task`, `uploadTask`, `multipartTask`, `downloadTask` and the awaiting
///   forms built on them): the transfer's options carry the hold; the task settles it when its
///   value is made.
extension TransferOptions {
    /// These options with a new completion hold, for a transfer behind an ``HTTPTask``.
    func holdingCompletion() -> (TransferOptions, CompletionHold) {
        var options = self
        let hold = CompletionHold()
        options.completionHold = hold
        return (options, hold)
    }
}
