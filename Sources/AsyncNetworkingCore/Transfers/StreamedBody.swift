import Foundation
import Synchronization
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
/// The body is made by a producer, once per attempt, so it can be sent again after a 307/308 or an
/// authentication challenge (AFNetworking's `taskNeedNewBodyStream`); a producer that cannot make
/// another stream answers `nil`, and the transfer fails with `.bodyStreamNotReplayable`.
final class StreamedBody: Sendable {
    /// The bytes the stream will produce, when known (for upload progress).
    let length: Int64?
    private let make: @Sendable (Int) -> InputStream?
    private let attempts = Atomic<Int>(0)

    init(length: Int64?, make: @escaping @Sendable () -> InputStream) {
        self.length = length
        self.make = { _ in make() }
    }

    init(_ producer: BodyStreamProducer) {
        self.length = producer.length
        self.make = producer.make
    }

    /// A new, unopened stream of the whole body for the next attempt, or `nil` when the producer
    /// cannot make one.
    func makeInputStream() -> InputStream? {
        make(attempts.add(1, ordering: .relaxed).oldValue)
    }

    /// How many streams were asked for.
    var streamsMade: Int { attempts.load(ordering: .relaxed) }
}

/// Makes the body of a streamed upload, once per attempt (AFNetworking's
/// `setTaskNeedNewBodyStreamBlock:`, per transfer): the first stream, and a fresh one whenever the
/// request must be sent again — after a 307/308 redirect, or after an authentication challenge.
///
/// The body is sent chunked while it is read. Its streams must never wait on a read (memory,
/// local files): on the URLSession transport, FoundationNetworking reads them inside a lock shared
/// by every transfer in the process.
///
/// ```swift
/// let body = BodyStreamProducer(length: Int64(data.count)) { _ in InputStream(data: data) }
/// let single = BodyStreamProducer.once(InputStream(fileAtPath: path)!) // cannot be re-sent
/// let handle = try await manager.uploadTask(with: request, bodyStream: body)
/// ```
public struct BodyStreamProducer: Sendable {
    /// The body's length when known (for upload progress only: the body is sent chunked).
    public let length: Int64?
    let make: @Sendable (Int) -> InputStream?

    /// A producer calling `make` for each attempt with its number (0 for the first). Return a new,
    /// unopened stream of the *whole* body, or `nil` when it cannot be made again: the transfer
    /// then fails with ``NetworkingError/Kind/bodyStreamNotReplayable``. Called on the manager's
    /// executor: keep it quick.
    public init(length: Int64? = nil, _ make: @escaping @Sendable (_ attempt: Int) -> InputStream?) {
        self.length = length
        self.make = make
    }

    /// A body that can be sent only once: `stream` is used for the first attempt; a transfer that
    /// has to send its body again fails with ``NetworkingError/Kind/bodyStreamNotReplayable``.
    public static func once(_ stream: sending InputStream, length: Int64? = nil) -> BodyStreamProducer {
        let box = OnceStream(stream)
        return BodyStreamProducer(length: length) { _ in box.take() }
    }
}

/// Holds a single stream until it is taken, once. `Mutex` is `Sendable` whatever it guards, and
/// hands its value out as `sending`: the stream is only ever owned by one side.
private final class OnceStream: Sendable {
    private let stream: Mutex<InputStream?>

    init(_ stream: sending InputStream) { self.stream = Mutex(stream) }

    func take() -> InputStream? {
        stream.withLock { value -> sending InputStream? in
            let taken = value
            value = nil
            return taken
        }
    }
}
