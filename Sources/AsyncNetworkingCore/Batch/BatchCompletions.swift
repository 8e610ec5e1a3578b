/// The members of a running batch as they finish: an `AsyncSequence` of `(index, result)` in
/// completion order, where `index` is the member's position in the batch's inputs.
///
/// Made by ``SessionManager/completions(for:width:options:failurePolicy:progress:)`` and
/// ``SessionManager/batchCompletions(_:width:failurePolicy:operation:)``. The batch starts when the
/// sequence is made and runs in a task of its own, at most `width` members at once.
///
/// ```swift
/// for await (index, result) in manager.completions(for: requests, width: 4) {
///     switch result {
///     case .success(let (body, response)): save(body, for: requests[index])
///     case .failure(let error): log(error)
///     }
/// }
/// ```
///
/// - Backpressure: the batch does not run ahead of its reader. One finished member waits in the
///   sequence; while it is not taken, no further member starts (at most `width` more can finish
///   meanwhile), so memory stays bounded by the width, not by the size of the batch.
/// - Cancellation: cancelling the task that waits in `next()` cancels the batch: running members
///   are cancelled, none start, and `next()` returns `nil` once they have all ended. Dropping the
///   sequence and every iterator before the end cancels the batch too.
/// - When `next()` returns `nil`, every member of the batch has ended.
///
/// Iterate it once, from one task at a time: iterators share the batch.
public struct BatchCompletions<Output: Sendable, MemberFailure: Error>: AsyncSequence, Sendable {
    /// A finished member: its position in the inputs, and its outcome.
    public typealias Element = (index: Int, result: Result<Output, MemberFailure>)
    /// The sequence itself never throws; failures are in the elements.
    public typealias Failure = Never

    let run: BatchRun<Element>

    /// Creates the iterator. Every iterator reads the same batch.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(run: run)
    }

    /// Reads completions from the batch.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let run: BatchRun<Element>

        /// The next member to finish, or `nil` when the batch is over. Suspends until a member
        /// finishes. Cancelling the calling task cancels the batch; `nil` is then returned once
        /// every member has ended.
        public mutating func next() async -> Element? {
            await run.next()
        }

        /// The same as ``next()``; the isolation is that of the caller.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await run.next()
        }
    }
}

/// A running batch as seen by its readers: the channel its completions arrive on and the task
/// that drives it. When the last reader lets go of it, the batch is cancelled.
final class BatchRun<Element: Sendable>: Sendable {
    let channel: CompletionChannel<Element>
    let driver: Task<Void, Never>

    init(channel: CompletionChannel<Element>, driver: Task<Void, Never>) {
        self.channel = channel
        self.driver = driver
    }

    deinit { cancel() }

    /// Stops the batch: the driver's members are cancelled and no more start.
    func cancel() {
        channel.close()
        driver.cancel()
    }

    func next() async -> Element? {
        let element = await withTaskCancellationHandler {
            await channel.receive()
        } onCancel: {
            self.cancel()
        }
        if element == nil {
            // The end, or a cancel: either way, return only once every member has ended.
            await driver.value
        }
        return element
    }
}
