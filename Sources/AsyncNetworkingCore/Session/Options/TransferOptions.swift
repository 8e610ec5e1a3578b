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
    /// Lets identical in-flight `GET`s share one transfer (request coalescing). Default `false`.
    ///
    /// Read by ``SessionManager/data(for:options:)`` (and ``SessionManager/data(from:options:)``)
    /// and by ``HTTPClient``'s awaiting calls (verbs, `send`) through ``HTTPClient/transferOptions``
    /// — so it is set per client, or per request with options of its own or a client copy.
    /// Requests are identical when the manager would send the same request for both — `GET`s
    /// without body to the same URL with the same header fields (the order aside) once the
    /// configuration's headers and the cookie jar's cookies are applied, the same timeout, cache
    /// policy and other options — under the same proxy configuration, security policy, stored
    /// credential and hooks, and handle the response the same way (`httpShouldHandleCookies`);
    /// see <doc:Coalescing>. While one runs,
    /// each identical request waits for it instead of starting its own; each caller gets the whole
    /// body and response. A caller's cancellation ends only its own wait (it throws
    /// ``NetworkingError/Kind/cancelled``); when the last caller leaves, the transfer is cancelled.
    /// Nothing is kept once the transfer ended: a later request starts a new one. The shared
    /// transfer's session completion event carries what a caller saw: for ``HTTPClient`` calls
    /// the first to finish (after its validation and decoding), for the manager's the transfer's
    /// outcome. Each caller keeps its own ``deadline``.
    /// Handles (``SessionManager/dataTask(with:options:)``), streams, uploads and downloads never
    /// coalesce.
    public var coalescesIdenticalRequests = false
    /// A total limit on the transfer (see ``RequestDeadline``), from when it is created: waiting
    /// for a slot or while held, connecting, redirects, answered challenges, a pause, and reading
    /// the whole body. When it passes the transfer is cancelled and fails with
    /// ``NetworkingError/Kind/deadlineExceeded`` (its event stream ends with that error); one
    /// already past fails the call before anything is sent. Default `nil`: no limit but the idle
    /// timeout (`URLRequest.timeoutInterval`).
    ///
    /// Read by every call that takes options — ``SessionManager/data(for:options:)``, uploads,
    /// downloads (an awaited download that resumes by itself keeps one deadline for all its
    /// attempts), handles and streams — and by ``HTTPClient``, whose ``HTTPClient/deadline`` it is:
    /// there it bounds the whole call, retries included. Coalesced callers
    /// (``coalescesIdenticalRequests``) each keep their own deadline: the shared transfer has none,
    /// and a caller whose deadline passes stops waiting with this error.
    public var deadline: RequestDeadline?
    /// Set by ``HTTPClient`` for the transfers of its calls: their completion events wait for the
    /// call's outcome (``CompletionHold``). `nil` for manager calls.
    package var completionHold: CompletionHold?
    /// Set by ``HTTPClient`` for the transfers of its awaiting calls, whose one reader collects the
    /// whole body in memory: such a transfer is never paused for its reader — it has no receive
    /// window, so on curl it asks for HTTP/2 where the server offers it, as
    /// ``SessionManager/data(for:options:)`` does — and its events wait in memory whatever
    /// ``buffer`` says (the body is bounded by ``maxResponseBytes``, as any collected body). `false`
    /// for the manager's own calls.
    package var collectsWholeBody = false

    /// How the transfer's event stream buffers: ``buffer``, or all in memory for a body collected
    /// whole (``collectsWholeBody``), which its reader holds in memory anyway.
    var eventBufferPolicy: BufferPolicy {
        collectsWholeBody ? BufferPolicy(highWaterMark: .max, lowWaterMark: .max) : buffer
    }

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
