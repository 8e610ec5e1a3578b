/// A pure parser of the response head lines libcurl hands to `CURLOPT_HEADERFUNCTION`, one complete
/// line (with its line end) per call.
///
/// - A status line (`HTTP/1.1 200 OK`, `HTTP/2 200`) starts a new head and discards any head in
///   progress: after a `100 Continue` the new status line replaces what came before. It follows
///   RFC 9112 §4: `HTTP/` (case-sensitive), a version, one space, exactly three digits, and an
///   optional reason phrase (`HTTP/1.1 200` with or without a trailing space is fine).
/// - Interim `1xx` heads are skipped: their blank line completes nothing.
/// - The blank line after a final (>= 200) status completes the head: ``consume(_:)`` returns it.
/// - Every line after a completed final head is in the trailer section (RFC 9110 §6.5; libcurl
///   hands trailers to the header callback after a chunked body), whatever it looks like — the
///   trailer state is checked before any status-line logic. A valid field line is a trailer, kept
///   in ``trailers``; any other line (shaped like a status line, without a colon, with a name that
///   is not a token, folded, holding a control character) is dropped, never fatal: the response
///   is complete. Trailers are kept up to ``maximumTrailerBytes`` of trailer lines; later ones are
///   dropped too (libcurl bounds a head at 300 KiB but not a trailer section). Only
///   ``beginRequest()`` — a new request on the handle, such as curl's own authentication retry —
///   ends the trailer section, so that the next status line starts a new head. Any other line
///   where a status line is due (`Http/1.1 200 OK`: the name is case-sensitive) is refused.
/// - Only LF (with or without a CR before it) ends a line. `\x0b`, `\x0c`, U+0085, U+2028 or a bare
///   CR never do, so a line holding one is not blank.
/// - A field line is checked per RFC 9110 §5.1 and §5.5: its name must be a non-empty token right
///   before the colon, its value must not hold control characters other than HTAB (NUL, a bare CR,
///   DEL and the other C0 controls). A line that breaks this, a line without a colon, or a line
///   that starts like a status line and is not one makes the head invalid: ``failure`` says why,
///   and the parser returns nothing more: the transport refuses the response.
/// - A line starting with a space or tab continues the previous field (obsolete folding): RFC 9112
///   §5.2 has a user agent replace the fold with a space, which it does. Whitespace lines before
///   the first field are skipped (RFC 9112 §2.2).
struct CurlHeadParser: Sendable {
    private enum State: Sendable {
        /// No status line yet, or the last head was interim.
        case awaitingStatus
        /// Collecting the fields of this head.
        case collecting(ResponseHead)
        /// A final head was returned; further non-status lines are trailers.
        case complete
        /// A line broke the rules; nothing is returned any more.
        case invalid(String)
    }

    private var state = State.awaitingStatus

    /// How many fields a head is given room for up front (a typical server sends 5–12).
    private static let typicalFieldCount = 12

    /// Trailer fields received after the last completed final head, in order (duplicates kept).
    private(set) var trailers: [(name: String, value: String)] = []
    /// Whether the last line of the trailer section became the last of ``trailers``.
    private var lastTrailerLineKept = false

    /// The most bytes of trailer lines kept per response, as libcurl bounds a head (300 KiB): a
    /// server sending trailer lines without end must not grow ``trailers`` without end.
    static let maximumTrailerBytes = 300 << 10
    /// Bytes of trailer lines seen since the last status line.
    private var trailerBytes = 0

    /// Whether a final head has been completed and no new status line arrived since.
    var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Why the head is invalid (the first line that broke the rules, described without its bytes),
    /// or `nil` while every line was acceptable. Once set it stays set.
    var failure: String? {
        if case .invalid(let reason) = state { return reason }
        return nil
    }

    /// A new request was made on the handle (`CURLOPT_PREREQFUNCTION`: curl's own authentication
    /// retry, or a retry on a fresh connection): the trailer section of the last response is over,
    /// and the next status line starts a new head.
    mutating func beginRequest() {
        if case .complete = state { state = .awaitingStatus }
    }

    /// Feeds one raw header line (bytes as received; decoded as UTF-8, invalid bytes as Latin-1).
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> ResponseHead? {
        consume(line: bytes.bindMemory(to: UInt8.self))
    }

    /// Feeds what one header callback handed over: normally one line, but libcurl 7.88 delivers
    /// the header lines it buffered while the transfer was paused in ONE call (seen with rapid
    /// pause toggling), so the bytes are split after each LF. `onHead` gets each final head.
    mutating func consumeLines(_ bytes: UnsafeRawBufferPointer, _ onHead: (ResponseHead) -> Void) {
        var start = 0
        while start < bytes.count, failure == nil {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? bytes.count
            if let head = consume(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { onHead(head) }
            start = end
        }
    }

    /// Feeds one header line (a trailing LF or CR LF is optional). Returns the head when this line
    /// completed a final head, else `nil`.
    mutating func consume(_ rawLine: String) -> ResponseHead? {
        var copy = rawLine
        return copy.withUTF8 { consume(line: $0) }
    }

    private mutating func consume(line raw: UnsafeBufferPointer<UInt8>) -> ResponseHead? {
        if case .invalid = state { return nil }
        var end = raw.count
        if end > 0, raw[end - 1] == .lf {
            end -= 1
            if end > 0, raw[end - 1] == .cr { end -= 1 }
        }
        let line = UnsafeBufferPointer(rebasing: raw[0..<end])

        if case .complete = state {
            // The trailer section: checked before any status-line logic, never fatal.
            lastTrailerLineKept = false
            if trailerBytes <= Self.maximumTrailerBytes { // once past the bound, counting stops (no overflow)
                trailerBytes += raw.count
                if trailerBytes <= Self.maximumTrailerBytes { collectTrailer(line) }
            }
            return nil
        }
        if Self.startsLikeStatusLine(line) {
            guard var head = Self.parseStatusLine(line) else { return fail("a malformed status line") }
            // Room for a typical head's fields, so appending them does not grow the array 4 times.
            head.fields.reserveCapacity(Self.typicalFieldCount)
            state = .collecting(head)
            trailers = []
            lastTrailerLineKept = false
            trailerBytes = 0
            return nil
        }
        if case .awaitingStatus = state { return fail("a malformed status line") }
        guard case .collecting(var head) = state else { return nil }
        // Take the head out of `state` so that appending a field does not copy the field array.
        state = .awaitingStatus
        defer { if case .awaitingStatus = state, !line.isEmpty { state = .collecting(head) } }
        if line.isEmpty {
            if head.statusCode < 200 {
                state = .awaitingStatus
                return nil
            }
            state = .complete
            return head
        }
        if line[0] == .space || line[0] == .tab {
            guard line.allSatisfy(ResponseHeadValidation.isFieldValueByte) else { return fail("a control character in a folded field line") }
            let continuation = Self.text(Self.trimmed(line[...]))
            if !head.fields.isEmpty, !continuation.isEmpty {
                let last = head.fields.count - 1
                head.fields[last].value += head.fields[last].value.isEmpty ? continuation : " " + continuation
                state = .collecting(head)
            }
            return nil
        }
        guard let colon = line.firstIndex(of: .colon) else { return fail("a header line without a colon") }
        let name = line[..<colon]
        guard !name.isEmpty, name.allSatisfy(ResponseHeadValidation.isTokenByte) else { return fail("a header field name that is not a token") }
        let value = line[(colon + 1)...]
        guard value.allSatisfy(ResponseHeadValidation.isFieldValueByte) else { return fail("a control character in a header field value") }
        head.fields.append((name: Self.text(name), value: Self.text(Self.trimmed(value))))
        state = .collecting(head)
        return nil
    }

    /// Forgets the trailer made of the last line of the trailer section, if that line became one:
    /// the transport learned the line was cut short (libcurl ends a trailer line at a bare CR).
    mutating func dropLastTrailerLine() {
        guard lastTrailerLineKept else { return }
        trailers.removeLast()
        lastTrailerLineKept = false
    }

    /// A line after the final head: a valid field line is a trailer; anything else is dropped.
    private mutating func collectTrailer(_ line: UnsafeBufferPointer<UInt8>) {
        lastTrailerLineKept = false
        guard !line.isEmpty, line[0] != .space, line[0] != .tab,
              let colon = line.firstIndex(of: .colon) else { return }
        let name = line[..<colon]
        let value = line[(colon + 1)...]
        guard !name.isEmpty, name.allSatisfy(ResponseHeadValidation.isTokenByte),
              value.allSatisfy(ResponseHeadValidation.isFieldValueByte) else { return }
        trailers.append((name: Self.text(name), value: Self.text(Self.trimmed(value))))
        lastTrailerLineKept = true
    }

    private mutating func fail(_ reason: String) -> ResponseHead? {
        state = .invalid("invalid response head: \(reason)")
        return nil
    }

    /// `HTTP/<digit>.<digit> <3 digits>[ [<reason>]]`, or `HTTP/2` / `HTTP/3` as curl writes them.
    private static func parseStatusLine(_ line: UnsafeBufferPointer<UInt8>) -> ResponseHead? {
        guard startsLikeStatusLine(line), let space = line.firstIndex(of: .space) else { return nil }
        let version = line[5..<space]
        let validVersion = (version.count == 3 && version[version.startIndex].isDigit && version[version.startIndex + 1] == .dot
            && version[version.startIndex + 2].isDigit) || (version.count == 1 && version[version.startIndex].isDigit)
        guard validVersion else { return nil }
        let codeStart = space + 1
        guard line.count >= codeStart + 3 else { return nil }
        let codeBytes = line[codeStart..<(codeStart + 3)]
        guard codeBytes.allSatisfy(\.isDigit) else { return nil }
        let code = codeBytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard code >= 100 else { return nil }
        var reason = ""
        if line.count > codeStart + 3 {
            guard line[codeStart + 3] == .space else { return nil }
            let rest = line[(codeStart + 4)...]
            guard rest.allSatisfy(ResponseHeadValidation.isFieldValueByte) else { return nil }
            reason = text(trimmed(rest))
        }
        return ResponseHead(statusCode: code, httpVersion: text(line[..<space]), reasonPhrase: reason)
    }

    /// Whether `line` starts with `HTTP/` (case-sensitive, RFC 9112 §2.3).
    private static func startsLikeStatusLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        line.count >= 5 && line[0] == UInt8(ascii: "H") && line[1] == UInt8(ascii: "T") && line[2] == UInt8(ascii: "T")
            && line[3] == UInt8(ascii: "P") && line[4] == UInt8(ascii: "/")
    }

    /// Without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var view = bytes
        while let first = view.first, first == .space || first == .tab { view = view.dropFirst() }
        while let last = view.last, last == .space || last == .tab { view = view.dropLast() }
        return view
    }

    /// UTF-8 text, or Latin-1 when the bytes are not valid UTF-8.
    private static func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(bytes.map { Character(Unicode.Scalar($0)) })
    }
}

extension UInt8 {
    fileprivate static let lf = UInt8(ascii: "\n")
    fileprivate static let cr = UInt8(ascii: "\r")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let dot = UInt8(ascii: ".")
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}
