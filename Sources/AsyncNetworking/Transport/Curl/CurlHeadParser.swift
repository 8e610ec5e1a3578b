/// A pure parser of the response head lines libcurl hands to `CURLOPT_HEADERFUNCTION`, one complete
/// line (with its CRLF) per call.
///
/// - A status line (`HTTP/1.1 200 OK`, `HTTP/2 200`) starts a new head and discards any head in
///   progress or already completed: after an authentication retry or a `100 Continue` the new
///   status line replaces what came before.
/// - Interim `1xx` heads are skipped: their blank line completes nothing.
/// - The blank line after a final (>= 200) status completes the head: ``consume(_:)`` returns it.
/// - Lines after a completed head (HTTP trailers) are ignored until the next status line.
/// - A line starting with a space or tab continues the previous field (obsolete folding).
/// - A line without a colon is ignored (libcurl has already rejected what it cannot parse).
struct CurlHeadParser: Sendable {
    private enum State: Sendable {
        /// No status line yet, or the last head was interim.
        case awaitingStatus
        /// Collecting the fields of this head.
        case collecting(CurlResponseHead)
        /// A final head was returned; further non-status lines are trailers.
        case complete
    }

    private var state = State.awaitingStatus

    /// Whether a final head has been completed and no new status line arrived since.
    var isComplete: Bool {
        if case .complete = state { return true }
        return false
    }

    /// Feeds one raw header line (bytes as received; decoded as UTF-8, invalid bytes as Latin-1).
    mutating func consume(_ bytes: UnsafeRawBufferPointer) -> CurlResponseHead? {
        consume(Self.decode(bytes))
    }

    /// Feeds one header line (a trailing CR LF is optional). Returns the head when this line
    /// completed a final head, else `nil`.
    mutating func consume(_ rawLine: String) -> CurlResponseHead? {
        var line = Substring(rawLine)
        while let last = line.last, last.isNewline { line = line.dropLast() }

        if let head = Self.parseStatusLine(line) {
            state = .collecting(head)
            return nil
        }
        guard case .collecting(var head) = state else { return nil }
        if line.isEmpty {
            if head.statusCode < 200 {
                state = .awaitingStatus
                return nil
            }
            state = .complete
            return head
        }
        if let first = line.first, first == " " || first == "\t" {
            let continuation = line.trimmingHTTPWhitespace()
            if !head.fields.isEmpty, !continuation.isEmpty {
                let last = head.fields.count - 1
                head.fields[last].value += head.fields[last].value.isEmpty ? continuation : " " + continuation
                state = .collecting(head)
            }
            return nil
        }
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingHTTPWhitespace()
        guard !name.isEmpty else { return nil }
        head.fields.append((name: name, value: line[line.index(after: colon)...].trimmingHTTPWhitespace()))
        state = .collecting(head)
        return nil
    }

    /// Parses `HTTP/<version> <3 digits>[ <reason>]`, or returns `nil` when `line` is not one.
    static func parseStatusLine(_ line: Substring) -> CurlResponseHead? {
        guard line.hasPrefix("HTTP/") else { return nil }
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2 else { return nil }
        let version = String(parts[0])
        let versionNumber = version.dropFirst(5)
        guard !versionNumber.isEmpty, versionNumber.allSatisfy({ $0.isNumber || $0 == "." }) else { return nil }
        guard parts[1].count == 3, let code = Int(parts[1]), code >= 100 else { return nil }
        let reason = parts.count > 2 ? parts[2].trimmingHTTPWhitespace() : ""
        return CurlResponseHead(statusCode: code, httpVersion: version, reasonPhrase: reason)
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        let units = bytes.bindMemory(to: UInt8.self)
        if let text = String(validating: units, as: UTF8.self) { return text }
        return String(units.map { Character(Unicode.Scalar($0)) })
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingHTTPWhitespace() -> String {
        var view = self[...]
        while let first = view.first, first == " " || first == "\t" { view = view.dropFirst() }
        while let last = view.last, last == " " || last == "\t" { view = view.dropLast() }
        return String(view)
    }
}
