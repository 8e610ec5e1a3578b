/// How large one element of a decoded stream may grow before the stream fails with
/// ``NetworkingError/Kind/streamElementTooLarge(limit:)`` — the bound that keeps a decoded stream's
/// memory finite whatever the server sends (a line that never ends, an event that never dispatches).
public struct StreamLimits: Sendable, Hashable {
    /// The longest line, in bytes, terminator excluded: a text line, a JSON Lines value, or one
    /// line of a server-sent event. Default 4 MiB.
    public var maxLineLength: Int
    /// The largest data of one server-sent event, in bytes (the `data:` lines together, with a
    /// byte per line feed). Default 4 MiB.
    public var maxEventSize: Int

    /// Creates limits; each is at least 1. Every argument has the default described on its property.
    public init(maxLineLength: Int = 4 << 20, maxEventSize: Int = 4 << 20) {
        self.maxLineLength = max(1, maxLineLength)
        self.maxEventSize = max(1, maxEventSize)
    }

    /// 4 MiB lines and 4 MiB events.
    public static let `default` = StreamLimits()
}
