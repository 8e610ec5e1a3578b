import Foundation

/// Where a transport that runs attempts on threads of its own (the stubs transport) reports their
/// events: the Session layer — a `SessionManager`, which the transport holds weakly.
package protocol AttemptEventSink: AnyObject, Sendable {
    /// Enqueues `event` of attempt `id` on the sink's executor, in call order, from any thread.
    /// Never runs the event in place (the caller may hold a lock).
    func enqueue(_ event: AttemptEvent, of id: AttemptID)
}
