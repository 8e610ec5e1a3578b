/// The hand-off between a batch's driver task (the producer) and the task iterating
/// ``BatchCompletions`` (the consumer): one buffered completion, and a producer that waits while
/// it is full, so the batch never runs far ahead of its reader.
///
/// A mutex (the core's ``SanitizedMutex``, a `Synchronization.Mutex` ThreadSanitizer can see)
/// guards the few fields because both sides, and cancellation handlers (which cannot suspend),
/// touch them from any thread; continuations are resumed outside the lock.
final class CompletionChannel<Element: Sendable>: Sendable {
    private struct State: Sendable {
        /// A completion waiting for the consumer (at most one).
        var buffered: Element?
        /// The producer's next completion while the buffer is full, and the producer waiting.
        var pending: (element: Element, producer: CheckedContinuation<Bool, Never>)?
        /// Consumers waiting for a completion (normally at most one).
        var consumers: [CheckedContinuation<Element?, Never>] = []
        /// The producer is done: nothing more will be sent.
        var isFinished = false
        /// The consumer is gone: what is sent is dropped.
        var isClosed = false
    }

    private let state = SanitizedMutex(State())

    init() {}

    // MARK: Producer

    /// Hands over `element`. Returns at once while the buffer has room or a consumer waits, else
    /// suspends until the consumer takes the buffered one.
    /// - Returns: `false` when the consumer is gone (the element was dropped).
    func send(_ element: Element) async -> Bool {
        await withCheckedContinuation { (producer: CheckedContinuation<Bool, Never>) in
            let (consumer, accepted): (CheckedContinuation<Element?, Never>?, Bool?) = state.withLock { state in
                if state.isClosed { return (nil, false) }
                if !state.consumers.isEmpty { return (state.consumers.removeFirst(), true) }
                if state.buffered == nil {
                    state.buffered = element
                    return (nil, true)
                }
                state.pending = (element, producer)
                return (nil, nil)
            }
            consumer?.resume(returning: element)
            if let accepted { producer.resume(returning: accepted) }
        }
    }

    /// Ends the stream: consumers get what is buffered, then `nil`.
    func finish() {
        let waiting = state.withLock { state in
            state.isFinished = true
            defer { state.consumers.removeAll() }
            return state.consumers
        }
        for consumer in waiting { consumer.resume(returning: nil) }
    }

    // MARK: Consumer

    /// The next completion, or `nil` once the producer finished or the consumer closed.
    func receive() async -> Element? {
        await withCheckedContinuation { (consumer: CheckedContinuation<Element?, Never>) in
            let (delivery, producer): (Element??, CheckedContinuation<Bool, Never>?) = state.withLock { state in
                if let element = state.buffered {
                    state.buffered = state.pending?.element
                    defer { state.pending = nil }
                    return (.some(element), state.pending?.producer)
                }
                if state.isFinished || state.isClosed { return (.some(nil), nil) }
                state.consumers.append(consumer)
                return (nil, nil)
            }
            producer?.resume(returning: true)
            if let delivery { consumer.resume(returning: delivery) }
        }
    }

    /// The consumer is gone: drops what is buffered, wakes waiting consumers with `nil` and the
    /// waiting producer with `false`. Idempotent.
    func close() {
        let (consumers, producer) = state.withLock { state in
            state.isClosed = true
            state.buffered = nil
            defer {
                state.consumers.removeAll()
                state.pending = nil
            }
            return (state.consumers, state.pending?.producer)
        }
        for consumer in consumers { consumer.resume(returning: nil) }
        producer?.resume(returning: false)
    }
}
