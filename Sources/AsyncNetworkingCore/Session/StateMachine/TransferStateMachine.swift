/// The payload types a ``TransferStateMachine`` carries without looking inside them.
///
/// Production uses `URLRequest`, ``ResponseHead``, `Data` and ``NetworkingError``
/// (``LiveTransferPayload``); the table tests use strings, so they need no network objects.
protocol TransferMachinePayload {
    /// What an attempt sends (opaque to the machine).
    associatedtype Request: Sendable
    /// A response head as the transport reported it (opaque: its facts come as ``TransferStateMachine/HeadFacts``).
    associatedtype Head: Sendable
    /// One chunk of a response body.
    associatedtype Body: Sendable
    /// An error the I/O shell or the transport produced.
    associatedtype Failure: Sendable

    /// The number of body bytes in `body` (for the response-size limit).
    static func byteCount(of body: Body) -> Int64
}

/// One attempt of one transfer (one request on one connection), numbered by its state machine.
/// Events of an earlier attempt carry an older identifier and are ignored.
struct TransferAttemptID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// 1 for the first attempt, increasing.
    let rawValue: Int

    /// Attempt order.
    static func < (lhs: TransferAttemptID, rhs: TransferAttemptID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `attempt#N`.
    var description: String { "attempt#\(rawValue)" }
}

/// The per-transfer logic of the Session layer as a pure value: redirects, challenges, the
/// response hook, limits, re-sends, pause, suspension in place, cancellation and invalidation.
///
/// Each `mutating` method takes one input — an attempt's event (tagged with its
/// ``TransferAttemptID``), a decision's answer, or a control — and returns the actions the I/O
/// shell (the ``SessionManager`` actor) performs, in order. No I/O, no clocks, no closures, no
/// transport: the shell classifies what it received (``HeadFacts``) before asking.
///
/// Transitions (inputs not listed leave the phase unchanged and return nothing; events of an
/// earlier attempt and answers about one are always ignored):
///
///     waiting(held:false) --admitted--> running(#n)          --start--> [schedule]
///     waiting(held:true)  --resume-->   waiting(held:false)  waiting --cancel/invalidate--> finished
///     running --3xx head--> deciding(redirect) --follow--> resending(next) --completed--> running(#n+1)
///                                          --refuse--> final head (hook?) --fail--> cancelling
///     running --401/407 head--> deciding(challenge) --retry--> resending(current request)
///                                                  --refuse / attempt ends unasked--> final head
///     final head --hook--> deciding(response) --allow/becomeDownload--> running (held replayed)
///                                             --cancel--> cancelling
///     running/deciding/resending --suspend(.restart)--> pausing --completed--> waiting(held)
///     pausing --resume--> pausing(resumeRequested) --completed--> waiting(held:false) + schedule
///     any attempt phase --cancel / invalidate(cancelRunning) / limit--> cancelling --completed
///                                                                     or timed out--> finished
///     running --completed--> finished (success with a head, else failure)
///
/// Contract with the shell:
/// - Execute the returned actions in order. When a delivery (``Action/deliverHead(_:)``,
///   a ``BodyAction/deliver(_:)``, a replayed event) fails in the sink, call ``cancel(_:)`` with
///   the error and execute its actions; what then no longer applies is ignored by the machine.
/// - ``Action/replay(_:_:)`` hands held events back: feed each to ``replay(_:_:)`` in order.
/// - Answers to decisions and controls may arrive at any time, late or twice: the machine ignores
///   those that no longer apply (an old attempt, a cancelled decision).
struct TransferStateMachine<Payload: TransferMachinePayload>: Sendable {
    /// What an attempt sends.
    typealias Request = Payload.Request
    /// A response head.
    typealias Head = Payload.Head
    /// A body chunk.
    typealias Body = Payload.Body
    /// An error from the shell or the transport.
    typealias Failure = Payload.Failure

    /// The rules a transfer runs under, fixed when it is created.
    struct Configuration: Sendable, Hashable {
        /// Redirects followed before the transfer fails with ``Reason/tooManyRedirects(limit:)``.
        var maxRedirects: Int = 16
        /// Credentials tried (new attempts) before a challenge is refused and its 401/407 is the result.
        var maxAuthenticationAttempts: Int = 2
        /// The response-body limit (declared or received), `nil` for none.
        var maxResponseBytes: Int64?
        /// Whether a response hook decides about every final response head.
        var hasResponseHook = false
    }

    /// What the machine knows of the attempt under way.
    struct Attempt: Sendable, Hashable {
        /// Its identifier.
        let id: TransferAttemptID
        /// A final head was delivered (or replaced by a later one in the same attempt).
        var hasHead = false
        /// Body bytes counted since that head.
        var bytesReceived: Int64 = 0
        /// A challenge was refused: a cancelled completion then means "the 401/407 is the result".
        var challengeRefused = false
        /// The attempt's completion was already received (handed back by a ``Action/replay(_:_:)``):
        /// no other completion will come, so a stop ends the transfer at once.
        var ended = false
    }

    /// A decision the machine waits for, while it holds the attempt's later events back.
    enum Decision: Sendable {
        /// A 3xx that proposes `proposal`: follow, refuse (the 3xx is the result) or fail.
        case redirect(head: Head, proposal: Request)
        /// A 401/407 (or a challenge without a held head when `head` is `nil`). `asked` is `false`
        /// while the transport's challenge may still come (URLSession); if the attempt ends
        /// first, the held head is the result.
        case challenge(head: Head?, asked: Bool)
        /// The response hook decides about this final head.
        case response(head: Head)
    }

    /// An attempt's event held back during a decision, handed back with ``Action/replay(_:_:)``.
    enum HeldEvent: Sendable {
        /// A later head of the same attempt, with its facts.
        case head(Head, HeadFacts)
        /// A body chunk.
        case body(Body)
        /// The attempt's end.
        case completion(AttemptOutcome)
    }

    /// Where the transfer stands.
    enum Phase: Sendable {
        /// Registered, not running: `held` by `startsImmediately: false` or a suspension (the
        /// scheduler does not know it), else queued for a slot.
        case waiting(held: Bool)
        /// An attempt runs; its events are delivered.
        case running(Attempt)
        /// An attempt runs and a decision is pending; its later events are held.
        case deciding(Attempt, Decision, held: [HeldEvent])
        /// The attempt is being stopped; `next` starts as soon as it has ended (a redirect, a
        /// credential retry, a restart). Its late events are ignored.
        case resending(Attempt, next: Request)
        /// The attempt is being stopped for a pause (resumed later with a new attempt, e.g. `Range`).
        case pausing(Attempt, resumeRequested: Bool)
        /// The attempt is being stopped; the transfer fails with `reason` when it has ended.
        case cancelling(Attempt, reason: Reason)
        /// Ended; the shell was told exactly once (``Action/finish(_:wasRunning:)``).
        case finished
    }

    // The stored state is changed only by the machine's methods (the extensions in this folder);
    // it is not `private(set)` because those live in other files, and tests set up phases directly.

    /// The rules. (The shell may update ``Configuration/hasResponseHook`` when hooks change
    /// after the transfer was created; it is read when a final head arrives.)
    var configuration: Configuration
    /// Where the transfer stands.
    var phase: Phase
    /// The request the next attempt sends (changed by a followed redirect).
    var currentRequest: Request
    /// Redirects followed so far.
    var redirectCount = 0
    /// Credential retries so far (new attempts after a challenge).
    var authenticationAttempts = 0
    /// Suspended where it stands: the current attempt (and any next one) is paused until resumed.
    var isSuspendedInPlace = false
    /// The manager was invalidated: no new attempt starts.
    var isInvalidated = false
    /// The last attempt number handed out.
    var lastAttempt = 0

    /// A new transfer, waiting: `held` when it must not start until resumed.
    init(request: Request, held: Bool, configuration: Configuration = Configuration()) {
        self.currentRequest = request
        self.configuration = configuration
        self.phase = .waiting(held: held)
    }

    /// The attempt under way (stopping ones included), if any.
    var currentAttempt: TransferAttemptID? {
        switch phase {
        case .running(let attempt), .deciding(let attempt, _, _), .resending(let attempt, _),
             .pausing(let attempt, _), .cancelling(let attempt, _):
            return attempt.id
        case .waiting, .finished:
            return nil
        }
    }

    /// Whether the transport still waits for an answer about `attempt` (a redirect or a challenge
    /// it asked about): answering a URLSession task that was cancelled can trap.
    func isDeciding(_ attempt: TransferAttemptID) -> Bool {
        if case .deciding(let current, _, _) = phase { return current.id == attempt }
        return false
    }

    /// A transfer's status as ``TransferSnapshot`` reports it.
    enum Status: Sendable, Hashable {
        /// Queued for a slot.
        case waiting
        /// Held, pausing, paused, or paused in place.
        case suspended
        /// An attempt runs.
        case running
        /// Being stopped for a failure or a cancel.
        case cancelling
        /// Ended.
        case finished
    }

    /// What a snapshot of the transfer shows.
    var status: Status {
        switch phase {
        case .waiting(let held): return held ? .suspended : .waiting
        case .running, .deciding, .resending: return isSuspendedInPlace ? .suspended : .running
        case .pausing: return .suspended
        case .cancelling: return .cancelling
        case .finished: return .finished
        }
    }

    /// Numbers a new attempt.
    mutating func makeAttemptID() -> TransferAttemptID {
        lastAttempt += 1
        return TransferAttemptID(rawValue: lastAttempt)
    }
}

extension TransferStateMachine.Decision: Equatable where Payload.Request: Equatable, Payload.Head: Equatable {}
extension TransferStateMachine.HeldEvent: Equatable
    where Payload.Request: Equatable, Payload.Head: Equatable, Payload.Body: Equatable, Payload.Failure: Equatable {}
extension TransferStateMachine.Phase: Equatable
    where Payload.Request: Equatable, Payload.Head: Equatable, Payload.Body: Equatable, Payload.Failure: Equatable {}
