/// One event of a `text/event-stream` body (Server-Sent Events, as the WHATWG HTML standard
/// defines them), as ``EventSource`` and ``ServerSentEventSequence`` deliver it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event type: the last `event:` field of the event, or `"message"` when there was none
    /// (or it was empty).
    public var event: String
    /// The `data:` fields of the event joined with `"\n"` (never ending with the last one's line
    /// feed). An event with no `data:` field is never delivered.
    public var data: String
    /// The last event ID when the event was dispatched: the `id:` of this event or of an earlier
    /// one (the standard's `lastEventId`). `nil` when no `id:` was ever sent or the last one was
    /// empty. ``EventSource`` sends it as `Last-Event-ID` when it reconnects.
    public var id: String?
    /// The reconnection time, in milliseconds, from a valid `retry:` field of this event, if it had
    /// one. ``EventSource`` applies every valid `retry:` as soon as it is read, even in a block
    /// that dispatches no event.
    public var retry: Int?

    /// Creates an event (for tests and for servers written with this library).
    public init(event: String = "message", data: String, id: String? = nil, retry: Int? = nil) {
        self.event = event
        self.data = data
        self.id = id
        self.retry = retry
    }
}
