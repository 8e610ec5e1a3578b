import Foundation

/// The `text/event-stream` interpretation of the WHATWG HTML standard (§9.2.6), line by line: pure,
/// no I/O. Feed it the lines a ``LineSplitter`` cuts (CR, LF and CRLF endings); it returns an event
/// when a blank line dispatches one.
///
/// - A UTF-8 byte order mark at the start of the stream is skipped; bytes that are not UTF-8 are
///   replaced with U+FFFD.
/// - A line starting with `:` is a comment. Otherwise the field name runs to the first `:` (or the
///   whole line), and one space after the colon is dropped from the value.
/// - `data` appends the value and a LF to the data buffer; `event` sets the type (default
///   `"message"`); `id` sets the last event ID unless the value contains NUL; `retry` sets the
///   reconnection time if the value is ASCII digits only; any other field is ignored.
/// - A blank line dispatches: the last event ID is committed, and if the data buffer is empty
///   nothing is delivered; otherwise the buffer's final LF is removed and the event delivered.
/// - What follows the last blank line is never delivered (the stream ended mid-event).
///
/// The event being built is bounded: once its data passes `maxEventSize` bytes the next line throws
/// ``NetworkingError/Kind/streamElementTooLarge(limit:)``.
struct ServerSentEventParser: Sendable {
    /// The largest data buffer of one event, in bytes (counting the LF after each `data:` line).
    let maxEventSize: Int
    /// The last event ID, as committed at the last dispatch (what `Last-Event-ID` sends).
    private(set) var lastEventID = ""
    /// The reconnection time in milliseconds from the last valid `retry:` field, if any.
    private(set) var reconnectionTime: Int?

    private var data: [UInt8] = []
    private var eventType = ""
    private var pendingID: String?
    private var pendingRetry: Int?
    private var atStreamStart = true

    init(maxEventSize: Int, lastEventID: String = "") {
        self.maxEventSize = max(1, maxEventSize)
        self.lastEventID = lastEventID
    }

    /// Starts a new stream (a reconnection): the buffers are emptied and a byte order mark is
    /// skipped again; the last event ID and the reconnection time are kept.
    mutating func restart() {
        data.removeAll()
        eventType = ""
        pendingID = nil
        pendingRetry = nil
        atStreamStart = true
    }

    /// The event buffer's size in bytes.
    var bufferedBytes: Int { data.count + eventType.utf8.count }

    /// Interprets one line (without its terminator). Returns the event a blank line dispatches.
    ///
    /// - Throws: ``NetworkingError/Kind/streamElementTooLarge(limit:)`` when the event's data would
    ///   pass ``maxEventSize``.
    mutating func parse(line: Data) throws(NetworkingError) -> ServerSentEvent? {
        var bytes = line[...]
        if atStreamStart {
            atStreamStart = false
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        }
        guard let first = bytes.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }
        let name: Data.SubSequence
        var value: Data.SubSequence
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            name = bytes[bytes.startIndex..<colon]
            value = bytes[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = bytes
            value = bytes[bytes.endIndex...]
        }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            guard data.count + value.count + 1 <= maxEventSize else {
                throw NetworkingError(
                    .streamElementTooLarge(limit: maxEventSize),
                    "a server-sent event's data is larger than \(maxEventSize) bytes"
                )
            }
            data.append(contentsOf: value)
            data.append(0x0A)
        case "event":
            // Bounded by the line limit: a type is one line.
            eventType = String(decoding: value, as: UTF8.self)
        case "id":
            if !value.contains(0) { pendingID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) {
                // Digits only; an absurdly long value saturates instead of overflowing.
                let milliseconds = value.reduce(0) { total, digit in
                    total > Int.max / 20 ? Int.max / 2 : total * 10 + Int(digit - 0x30)
                }
                reconnectionTime = milliseconds
                pendingRetry = milliseconds
            }
        default:
            break
        }
        return nil
    }

    /// A blank line: commit the last event ID, deliver the event if it has data, reset the buffers.
    private mutating func dispatch() -> ServerSentEvent? {
        if let pendingID { lastEventID = pendingID }
        defer {
            data.removeAll(keepingCapacity: data.count <= 64 << 10)
            eventType = ""
            pendingID = nil
            pendingRetry = nil
        }
        guard !data.isEmpty else { return nil }
        data.removeLast()
        return ServerSentEvent(
            event: eventType.isEmpty ? "message" : eventType,
            data: String(decoding: data, as: UTF8.self),
            id: lastEventID.isEmpty ? nil : lastEventID,
            retry: pendingRetry
        )
    }
}
