import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body read from an `InputStream` while it is sent: the payload of `UploadSource.stream`.
///
/// FoundationNetworking sends such a body with `Transfer-Encoding: chunked` (it cannot send a
/// `Content-Length` with a stream), and reads it with a blocking `read` *inside a process-wide
/// lock* (`lockingForOpenSSLIfNeeded` around `curl_multi_socket_action`): a read that waits holds up
/// every transfer of every URLSession in the process. So only bodies whose reads never wait — memory,
/// local files, the multipart reader — are streamed; an `AsyncSequence` is spooled to a file instead.
///
/// The body is made by a factory, so it can be produced again: it is re-sent after a 307/308.
final class StreamedBody: Sendable {
    /// The bytes the stream will produce, when known (for upload progress).
    let length: Int64?
    private let make: @Sendable () -> InputStream

    init(length: Int64?, make: @escaping @Sendable () -> InputStream) {
        self.length = length
        self.make = make
    }

    /// A new, unopened stream of the whole body.
    func makeInputStream() -> InputStream { make() }
}
