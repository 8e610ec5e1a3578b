import Foundation
import Synchronization

/// A request body read from an `InputStream` while it is sent: the payload of `UploadSource.stream`.
///
/// FoundationNetworking sends such a body with `Transfer-Encoding: chunked` (it cannot send a
/// `Content-Length` with a stream). A body made by a factory can be produced again, so it is
/// re-sent after a 307/308; a one-shot body (an `AsyncSequence`) cannot, and such a redirect fails
/// the transfer with ``NetworkingError/Kind/unsupportedOperation`` instead of sending it empty.
final class StreamedBody: Sendable {
    /// The bytes the stream will produce, when known (for upload progress).
    let length: Int64?
    /// Whether ``makeInputStream()`` may be called again for a fresh copy of the body.
    let isReplayable: Bool
    private let make: @Sendable () -> InputStream
    private let streamsMade = Mutex(0)

    init(length: Int64?, isReplayable: Bool, make: @escaping @Sendable () -> InputStream) {
        self.length = length
        self.isReplayable = isReplayable
        self.make = make
    }

    /// A new, unopened stream of the body. A one-shot body asked twice gives an empty stream (the
    /// redirect check fails the transfer before that can be sent).
    func makeInputStream() -> InputStream {
        let count = streamsMade.withLock { made in
            made += 1
            return made
        }
        guard isReplayable || count == 1 else { return InputStream(data: Data()) }
        return make()
    }
}
