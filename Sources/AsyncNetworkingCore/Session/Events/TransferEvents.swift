/// The events of one transfer, as an `AsyncSequence` that throws the transfer's
/// ``NetworkingError``.
///
/// Iterate it once: `for try await event in handle.events { ... }`. The sequence is registered before
/// the URLSession task starts, so no event is missed however late you begin iterating. Events are
/// buffered until read; past the handle's ``BufferPolicy`` high-water mark, body bytes spill to a
/// temporary file, so memory stays bounded for a slow consumer.
///
/// Cancellation: cancelling the task that iterates cancels the transfer, and `next()` throws
/// ``NetworkingError/Kind/cancelled``. Dropping every copy of the sequence, its iterators and the
/// ``TransferHandle`` while the transfer still runs cancels it too.
public struct TransferEvents: AsyncSequence, Sendable {
    /// Each element is one ``TransferEvent``.
    public typealias Element = TransferEvent
    /// The sequence throws only ``NetworkingError``.
    public typealias Failure = NetworkingError

    let lifetime: ConsumerLifetime

    /// Creates the iterator. All iterators of one transfer share its single buffer.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(lifetime: lifetime)
    }

    /// Reads events from the transfer's buffer.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let lifetime: ConsumerLifetime

        /// The next event, or `nil` after ``TransferEvent/completed(_:)``. Suspends until an event
        /// arrives. Throws the transfer's error, or ``NetworkingError/Kind/cancelled`` when the
        /// calling task is cancelled (which also cancels the transfer).
        public mutating func next() async throws(NetworkingError) -> TransferEvent? {
            try await lifetime.channel.next()
        }
    }
}

/// Owned by every consumer-side value of one transfer (the handle, its event sequences and their
/// iterators). When the last of them goes away, the consumer has abandoned the stream: the channel
/// is told, and cancels the transfer if it is still running.
final class ConsumerLifetime: Sendable {
    let channel: EventChannel
    /// The response's trailer fields once a ``ResponseBody`` read them (its iterator skips the
    /// event); guarded by the lock, read from any thread.
    private let trailerFields = SanitizedMutex(HTTPHeaders())

    init(channel: EventChannel) { self.channel = channel }

    var trailers: HTTPHeaders {
        get { trailerFields.withLock { $0 } }
        set { trailerFields.withLock { $0 = newValue } }
    }

    deinit { channel.consumerLeft() }
}
