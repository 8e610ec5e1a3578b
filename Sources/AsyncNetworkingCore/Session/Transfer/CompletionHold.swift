import Foundation

/// Holds back the session-wide completion events (``SessionEvent/transferCompleted(_:_:)``,
/// ``TransferActivity/completed(_:)``) of the transfers one ``HTTPClient`` call starts, until the
/// call knows the outcome its caller sees — after validation and serialization, which run after
/// the transfer itself ended.
///
/// **Rule (issue 20 item 10):** the completion event carries the outcome the caller saw, for every
/// front door. A manager call publishes at once (its caller sees the transfer's own outcome); a
/// client call puts a hold in the transfer's options (``TransferOptions/completionHold``), and the
/// manager hands the hold a `publish` closure instead of publishing. The call then settles the
/// hold: its newest transfer is published with the call's error (or `nil`) and serialized value;
/// earlier transfers of the same call (a credential retry, a revalidation followed by a full
/// request) with their own transport outcome. Whichever comes second — the transfer's end or the
/// settlement — publishes. A hold dropped unsettled (a call abandoned) publishes every transfer
/// with its transport outcome, so no completion event is ever lost.
///
/// **Rule: whatever the caller has been told is in the session streams before they end.** A
/// caller is told after its call settled the hold, and may invalidate the manager at once. So
/// the event is published in the manager's executor job that ends the transfer when the call
/// settled first (``transferEnded(_:publish:)`` returns the outcome instead of scheduling it),
/// and otherwise scheduled by the settlement itself, before the caller is told — ahead of any
/// invalidation the caller asks for next (the executor runs jobs in order). A completion still
/// held when the manager is invalidated is published before the streams end, with the call's
/// outcome if it settled meanwhile, else the transfer's own (``SessionManager``'s
/// `publishHeldCompletions`): none is lost.
///
/// A coalesced transfer (one transfer, several callers) has a hold of its own: each caller's
/// hold forwards its settlement to it (``forward(to:)``), and the first settlement wins, so
/// the shared transfer's event carries what a caller saw (a `500` as
/// `unacceptableStatusCode(500)`), not the transport's outcome.
///
/// Thread-safe: its state is behind a lock; `publish` closures run outside it.
package final class CompletionHold: Sendable, Hashable {
    /// What a held completion is published with.
    enum Outcome: Sendable {
        /// The transfer's own outcome, as the manager saw it.
        case transport
        /// The caller's: its error (`nil` on success) and serialized value.
        case caller(NetworkingError?, value: (any Sendable)?)
    }

    typealias Publish = @Sendable (Outcome) -> Void

    private struct Entry: Sendable {
        var publish: Publish?
        var outcome: Outcome?
    }

    /// The hold of the client call running in this task, read by ``HTTPClient``'s exchange.
    @TaskLocal package static var current: CompletionHold?

    private let entries = SanitizedMutex<[TransferID: Entry]>([:])
    /// Holds settled along with this one (``forward(to:)``).
    private let followers = SanitizedMutex<[CompletionHold]>([])

    package init() {}

    /// Records a transfer started for the call (before it can be settled).
    package func register(_ id: TransferID) {
        entries.withLock { entries in
            if entries[id] == nil { entries[id] = Entry() }
        }
    }

    /// Called by the manager when transfer `id` ended: returns the outcome to publish at once
    /// when the call already settled it (the caller may have been told: the manager publishes it
    /// in the same job), else keeps `publish` for the settlement and returns `nil`.
    func transferEnded(_ id: TransferID, publish: @escaping Publish) -> Outcome? {
        entries.withLock { entries in
            if let outcome = entries[id]?.outcome {
                entries[id] = nil
                return outcome
            }
            entries[id, default: Entry()].publish = publish
            return nil
        }
    }

    /// Makes every later settlement of this hold settle `other` too (a coalesced transfer's hold,
    /// shared by the callers: the first to settle it wins).
    package func forward(to other: CompletionHold) {
        followers.withLock { $0.append(other) }
    }

    /// Settles every transfer not settled yet: the newest gets the caller's `error` and `value`,
    /// the others their transport outcome.
    package func settle(_ error: NetworkingError?, value: (any Sendable)?) {
        let ready: [(Publish, Outcome)] = entries.withLock { entries in
            let open = entries.filter { $0.value.outcome == nil }.map(\.key)
            guard let newest = open.max() else { return [] }
            var ready: [(Publish, Outcome)] = []
            for id in open {
                let outcome: Outcome = id == newest ? .caller(error, value: value) : .transport
                if let publish = entries[id]?.publish {
                    entries[id] = nil
                    ready.append((publish, outcome))
                } else {
                    entries[id]?.outcome = outcome
                }
            }
            return ready
        }
        for (publish, outcome) in ready { publish(outcome) }
        for follower in followers.withLock({ $0 }) { follower.settle(error, value: value) }
    }

    deinit {
        let left = entries.withLock { entries in entries.values.compactMap { entry in entry.publish.map { ($0, entry.outcome) } } }
        for (publish, outcome) in left { publish(outcome ?? .transport) }
    }

    package static func == (lhs: CompletionHold, rhs: CompletionHold) -> Bool { lhs === rhs }
    package func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension TransferCompletion {
    /// This completion as the caller saw it: the caller's error replaces the transport's (its
    /// response too, when it carries one), and the serialized value is added.
    func settled(_ outcome: CompletionHold.Outcome) -> TransferCompletion {
        guard case .caller(let error, let value) = outcome else { return self }
        return TransferCompletion(
            id: id, kind: kind, originalRequest: originalRequest, response: error?.response ?? response,
            fileURL: error == nil ? fileURL : nil, error: error, metrics: metrics, serializedValue: error == nil ? value : nil
        )
    }
}
