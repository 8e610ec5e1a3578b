import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stubs transport: answers each attempt from an ``HTTPStubs`` registry, in process, with the
/// same ``AttemptEvent``s a network transport reports — so a stubbed manager runs through the same
/// Session code as curl (redirect and challenge rules, credential scope, limits, re-sends).
///
/// Like curl it follows no redirect and answers no challenge itself: a stub's 3xx or 401 head goes
/// up as it is and the Session layer decides; following or retrying is a new attempt, answered
/// by the registry again (and recorded again). It sends exactly the request the Session layer
/// built: the registry records it with the body read from the attempt's upload (Data, file or
/// streamed). Stub heads are checked like curl checks a server's (field names are tokens, values
/// hold no control character but HTAB, status 100...999): a bad stub fails its transfer with
/// ``NetworkingError/Kind/transport(_:)`` `.badServerResponse`, as the server would.
///
/// The registry is held weakly: once released, every request fails with
/// ``NetworkingError/Kind/unmatchedStub``.
package final class StubTransport: Sendable {
    /// A reference to the registry that does not keep it alive.
    private struct WeakStubs: Sendable { weak var stubs: HTTPStubs? }

    /// The registry the attempts are answered from.
    private let registry: WeakStubs
    /// Hands an event to the manager's executor, in call order (set once, in the manager's init).
    private let relay = SanitizedMutex(Relay())
    /// The last attempt number handed out.
    private let lastAttempt = Atomic<UInt64>(0)
    /// Attempts not yet completed: cancelled when the transport goes (its manager was released
    /// with transfers running), so no player task outlives its manager.
    private let running = SanitizedMutex<[AttemptID: StubAttempt]>([:])

    /// Where events go: the manager, held weakly (the manager owns the transport).
    private struct Relay: Sendable { weak var sink: (any AttemptEventSink)? }

    /// A transport answering from `stubs` (held weakly).
    package init(stubs: HTTPStubs) {
        registry = WeakStubs(stubs: stubs)
    }

    /// Cancels the attempts still playing (their events go nowhere: the manager is gone).
    deinit {
        for attempt in running.withLock({ Array($0.values) }) { attempt.cancel() }
    }

    /// The registry, while it lives.
    var stubs: HTTPStubs? { registry.stubs }

    /// Sends this transport's events to `sink`, the manager (called once, from its init).
    package func attach(_ sink: any AttemptEventSink) {
        relay.withLock { $0.sink = sink }
    }

    /// Starts an attempt sending `request` with `body`, answered by the registry.
    ///
    /// The attempt's closures hold the relay and the table of running attempts, never the
    /// transport: the transport's `deinit` (which cancels attempts, taking their locks) can then
    /// never run inside an attempt's lock.
    package func start(_ request: URLRequest, body: StubUploadBody) -> StubAttempt {
        let id = AttemptID(lastAttempt.add(1, ordering: .relaxed).newValue)
        let attempt = StubAttempt(
            id: id,
            report: { [relay] id, event in
                // Enqueued on the manager's executor (FIFO: order is preserved). The job holds the
                // manager, but may run and end before this returns: the reference taken here is
                // handed back so that the attempt releases it after its lock.
                let sink = relay.withLock { $0.sink }
                sink?.enqueue(event, of: id)
                return sink
            },
            ended: { [running] id in running.withLock { $0[id] = nil } }
        )
        running.withLock { $0[id] = attempt }
        let player = StubPlayer(request: request, body: body, stubs: stubs)
        attempt.start { attempt in await player.play(to: attempt) }
        return attempt
    }
}

/// The request body of a stubbed attempt, as the Session layer hands it over.
package enum StubUploadBody: Sendable {
    /// No body.
    case none
    /// A body in memory (`httpBody` or upload data).
    case data(Data)
    /// A file upload: `length` bytes, measured when the attempt started.
    case file(URL, length: Int64)
    /// A streamed upload: this attempt's stream (made by the transfer's producer), and the
    /// producer's declared length when known.
    case stream(StubBodyStream, length: Int64?)

    /// The length for upload progress (≤ 0: unknown).
    var expectedLength: Int64 {
        switch self {
        case .none: 0
        case .data(let data): Int64(data.count)
        case .file(_, let length): length
        case .stream(_, let length): length ?? -1
        }
    }
}

/// An upload's `InputStream` handed to the player task. (`@unchecked`: `InputStream` is not
/// Sendable; after the hand-off only the player reads it, and the manager looks at its status
/// only once the attempt reported its completion.)
package final class StubBodyStream: @unchecked Sendable { // reason: InputStream is not Sendable; one reader (the player) after the hand-off
    // reason: `InputStream` is not Sendable; one reader (the player) after the hand-off.
    /// The stream, unopened until the player reads it.
    let stream: InputStream

    /// Hands `stream` over (the caller no longer reads it).
    package init(_ stream: InputStream) { self.stream = stream }
}
