/// Per-transfer settings.
public struct TransferOptions: Sendable, Hashable {
    /// How the event stream bounds memory for a slow consumer. Default ``BufferPolicy/default``.
    public var buffer: BufferPolicy
    /// Fails the transfer with ``NetworkingError/Kind/responseTooLarge(limit:)`` when the body is
    /// larger: at once from `Content-Length`, or while streaming (bytes after decompression).
    /// Default `nil` (no limit).
    public var maxResponseBytes: Int64?
    /// Where the transfer waits when ``SessionManager/maxConcurrentTransfers`` is reached.
    /// Default ``TransferPriority/normal``.
    public var priority: TransferPriority
    /// When `false`, the transfer is registered but not started until ``TransferHandle/resume()``.
    /// Default `true`.
    public var startsImmediately: Bool
    /// How this transfer follows redirects, checked before the manager's redirect hook.
    /// Default ``RedirectPolicy/follow``.
    public var redirectPolicy: RedirectPolicy = .follow
    /// Set by ``HTTPClient`` for the transfers of its calls: their completion events wait for the
    /// call's outcome (``CompletionHold``). `nil` for manager calls.
    var completionHold: CompletionHold?

    /// Creates options; every argument has the default described on its property.
    public init(
        buffer: BufferPolicy = .default,
        maxResponseBytes: Int64? = nil,
        priority: TransferPriority = .normal,
        startsImmediately: Bool = true
    ) {
        self.buffer = buffer
        self.maxResponseBytes = maxResponseBytes
        self.priority = priority
        self.startsImmediately = startsImmediately
    }

    /// All defaults.
    public static let `default` = TransferOptions()
}

/// The order in which waiting transfers start when the manager's concurrency limit is reached:
/// all `high` before any `normal`, all `normal` before any `low`, first come first served within one.
public enum TransferPriority: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Starts after every waiting `normal` and `high` transfer.
    case low = 0
    /// The default.
    case normal = 1
    /// Starts before every waiting `normal` and `low` transfer.
    case high = 2

    /// `low < normal < high`.
    public static func < (lhs: TransferPriority, rhs: TransferPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
