/// How far a batch of transfers has got, as read by a progress bar.
///
/// Bytes are summed over the members; sizes a member does not know yet are handled as follows:
/// a member counts towards ``download``'s expected bytes once its response has arrived (its
/// `Content-Length`), and once it has ended, with exactly the bytes it received. While any member
/// that has a response but has not ended has no known length (a chunked or compressed body),
/// ``download``'s `expectedBytes` is `nil`. Members that have no response yet are not counted, so
/// the expected total grows as members start; when every member has ended it equals
/// ``download``'s `completedBytes`. ``upload`` works the same way for request bodies.
///
/// For one number that covers the whole batch from the start, read ``fractionCompleted``.
public struct BatchProgress: Sendable, Hashable {
    /// The number of members in the batch.
    public var totalCount: Int
    /// Members that have ended, successfully or not.
    public var finishedCount: Int
    /// Members that have ended with an error (included in ``finishedCount``).
    public var failedCount: Int
    /// Response body bytes received across members, and the bytes expected (see the type's
    /// discussion for when it is `nil`).
    public var download: TransferProgress
    /// Request body bytes sent across members, and the bytes expected (`nil` while a member sends a
    /// body of unknown length).
    public var upload: TransferProgress
    /// From 0 to 1: the mean over all members of each member's fraction. A member that has ended
    /// (either way) counts 1, one not started 0, a running one its bytes done over its bytes
    /// expected where known (0 while unknown). Exactly 1 once every member has ended.
    public var fractionCompleted: Double

    /// Creates a progress value.
    public init(
        totalCount: Int, finishedCount: Int, failedCount: Int,
        download: TransferProgress, upload: TransferProgress, fractionCompleted: Double
    ) {
        self.totalCount = totalCount
        self.finishedCount = finishedCount
        self.failedCount = failedCount
        self.download = download
        self.upload = upload
        self.fractionCompleted = fractionCompleted
    }

    /// Whether every member has ended.
    public var isFinished: Bool { finishedCount == totalCount }

    /// Makes a stream for a progress bar and the continuation to give a batch as its `progress`.
    ///
    /// The stream keeps only the newest value (`.bufferingNewest(1)`): a slow reader skips
    /// intermediate values and never falls behind. The batch yields a value when it starts, on
    /// every member's progress, response and end, and finishes the stream when it returns, with
    /// the final value as the last element.
    ///
    /// ```swift
    /// let (progress, reporter) = BatchProgress.makeStream()
    /// async let bodies = manager.data(for: requests, progress: reporter)
    /// for await value in progress { bar.fraction = value.fractionCompleted }
    /// let results = try await bodies
    /// ```
    public static func makeStream() -> (stream: AsyncStream<BatchProgress>, continuation: AsyncStream<BatchProgress>.Continuation) {
        AsyncStream.makeStream(of: BatchProgress.self, bufferingPolicy: .bufferingNewest(1))
    }
}
