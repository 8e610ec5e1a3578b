import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request body read from an `AsyncSequence` of chunks while it is sent (curl): the payload of
/// `UploadSource.sequence`. Made once per attempt, like ``StreamedBody``: a body made from a
/// factory is asked for again when the request must be re-sent (a 307/308, a retry with a
/// credential); a single sequence cannot be, and the re-send fails with
/// ``NetworkingError/Kind/bodyStreamNotReplayable`` instead of sending a partial body.
final class SequenceBody: Sendable {
    /// Sends one attempt's chunks, in order, through `send`; throws what the sequence throws.
    typealias Pump = @Sendable (_ send: @Sendable (Data) async -> Void) async throws -> Void

    private let make: @Sendable (Int) -> Pump?
    private let attempts = Atomic<Int>(0)
    /// Trailer fields sent after each attempt's last chunk (curl, HTTP/1.1 chunked).
    let trailers: RequestTrailers?

    /// A body that is the chunks of `body`, iterated once: the first attempt only.
    init<Body: AsyncSequence & Sendable>(once body: Body, trailers: RequestTrailers? = nil) where Body.Element == Data {
        make = { attempt in attempt == 0 ? Self.pump(body) : nil }
        self.trailers = trailers
    }

    /// A body whose every attempt iterates a new sequence from `makeBody`.
    init<Body: AsyncSequence & Sendable>(
        factory makeBody: @escaping @Sendable () -> Body, trailers: RequestTrailers? = nil
    ) where Body.Element == Data {
        make = { _ in Self.pump(makeBody()) }
        self.trailers = trailers
    }

    /// The next attempt's pump, or `nil` when the body cannot be sent again.
    func makePump() -> Pump? {
        make(attempts.add(1, ordering: .relaxed).oldValue)
    }

    private static func pump<Body: AsyncSequence & Sendable>(_ body: Body) -> Pump where Body.Element == Data {
        { send in
            // Once the attempt is cancelled the sequence is never asked for another element (a
            // `for try await` would ask once more after a send woken by the cancel).
            var chunks = body.makeAsyncIterator()
            while !Task.isCancelled, let chunk = try await chunks.next() {
                if !chunk.isEmpty { await send(chunk) }
            }
            try Task.checkCancellation()
        }
    }
}

/// One attempt's pump: a task that iterates the body into the attempt's ``CurlBodyPipe``, at most
/// ``highWaterMark`` bytes ahead of what the connection has taken (the producer is suspended
/// meanwhile), then hands the pipe the body's trailer fields, if any, before ending it. Stopped
/// when the attempt ends (the task is cancelled: the body sequence and a trailer closure see the
/// cancellation).
final class SequenceBodyPump: Sendable {
    /// Bytes buffered ahead of the connection before the producer is suspended.
    static let highWaterMark = 256 * 1024

    private let task: Task<Void, Never>
    private let failureBox: SanitizedMutex<NetworkingError?>
    private let pipe: CurlBodyPipe

    /// Starts pumping `pump` into `pipe`, then `trailers`. `request` is named in the error a
    /// throwing sequence (or trailer closure) gives.
    init(_ pump: @escaping SequenceBody.Pump, trailers: RequestTrailers? = nil, into pipe: CurlBodyPipe, request: URLRequest) {
        let failureBox = SanitizedMutex<NetworkingError?>(nil)
        self.failureBox = failureBox
        self.pipe = pipe
        task = Task.detached {
            do {
                try await pump { chunk in
                    await pipe.waitForRoom(below: Self.highWaterMark)
                    pipe.write(chunk)
                }
                if let trailers {
                    let fields = try await Self.resolve(trailers, request: request)
                    try Task.checkCancellation()
                    pipe.setTrailers(fields.map { (name: $0.name, value: $0.value) })
                }
                pipe.finish()
            } catch let refused as TrailerFailure {
                failureBox.withLock { $0 = refused.error }
                pipe.finish(failure: refused.error.message)
            } catch {
                if !(error is CancellationError) {
                    failureBox.withLock {
                        $0 = NetworkingError(
                            .requestSerializationFailed, "the request body sequence threw: \(error)",
                            request: request, underlyingError: error
                        )
                    }
                }
                pipe.finish(failure: "the request body sequence failed")
            }
        }
    }

    /// The fields of `trailers` for this attempt, checked (``TrailerFieldRules``).
    private static func resolve(_ trailers: RequestTrailers, request: URLRequest) async throws -> HTTPHeaders {
        switch trailers.source {
        case .fields(let fields):
            return fields // checked before the transfer started
        case .computed(let make):
            let fields: HTTPHeaders
            do {
                fields = try await make()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw TrailerFailure(error: NetworkingError(
                    .requestSerializationFailed, "the request trailer closure threw: \(error)", request: request, underlyingError: error
                ))
            }
            do throws(NetworkingError) {
                try TrailerFieldRules.check(fields, request: request)
            } catch {
                throw TrailerFailure(error: error)
            }
            return fields
        }
    }

    /// Why the trailers could not be sent (kept apart from what the body sequence throws).
    private struct TrailerFailure: Error {
        let error: NetworkingError
    }

    /// What the sequence threw, if it did (reported as the attempt's failure).
    var failure: NetworkingError? { failureBox.withLock { $0 } }

    /// Stops the producer and drops what it had buffered (the attempt ended).
    func stop() {
        task.cancel()
        pipe.close()
    }
}
