import Foundation

/// A pure HTTP/1.x request-head parser: bytes in, a ``RequestHead`` (or why not) out. No I/O.
///
/// The connection hands it everything buffered so far; the parser reports how many bytes the
/// head used, so whatever follows (a body, or a pipelined request) stays in the buffer.
enum HTTPParser {
    /// The largest request head the server accepts.
    static let maxHeadSize = 64 * 1024

    /// The outcome of ``parseHead(_:)``.
    enum HeadResult: Sendable {
        /// More bytes are needed (no blank line yet).
        case incomplete
        /// A whole head was parsed; it used the first `consumed` bytes of the input.
        case complete(RequestHead, consumed: Int)
        /// The head is malformed; the reason is suitable for a 400 body.
        case invalid(String)
    }

    /// Parses one request head from the start of `bytes`.
    ///
    /// Empty lines before the request line are skipped (RFC 9112 §2.2). Lines may end in
    /// CRLF or a bare LF. Obsolete line folding, header lines without a colon, a bad request
    /// line, conflicting `Content-Length`s, or a transfer coding other than `chunked` make the
    /// head invalid.
    static func parseHead(_ bytes: UnsafeRawBufferPointer) -> HeadResult {
        var lines: [Range<Int>] = []
        var lineStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            if bytes[index] != UInt8(ascii: "\n") {
                index += 1
                continue
            }
            var lineEnd = index
            if lineEnd > lineStart && bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
            index += 1
            if lineEnd == lineStart {
                if lines.isEmpty {
                    lineStart = index // leading empty line: ignore
                    continue
                }
                return build(lines: lines, in: bytes, consumed: index)
            }
            lines.append(lineStart..<lineEnd)
            lineStart = index
        }
        return .incomplete
    }

    private static func text(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private static func build(lines: [Range<Int>], in bytes: UnsafeRawBufferPointer, consumed: Int) -> HeadResult {
        let requestLine = text(bytes, lines[0])
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            return .invalid("malformed request line")
        }
        guard parts[0].allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }) else {
            return .invalid("malformed method")
        }
        guard let version = parseVersion(parts[2]) else {
            return .invalid("unsupported HTTP version")
        }
        var headers: [(String, String)] = []
        headers.reserveCapacity(lines.count - 1)
        for line in lines.dropFirst() {
            let first = bytes[line.lowerBound]
            if first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                return .invalid("obsolete header line folding")
            }
            let field = text(bytes, line)
            guard let colon = field.firstIndex(of: ":") else {
                return .invalid("header line without a colon")
            }
            let name = field[..<colon]
            guard !name.isEmpty, !name.contains(where: { $0 == " " || $0 == "\t" }) else {
                return .invalid("malformed header name")
            }
            let value = field[field.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers.append((String(name), value))
        }
        let target = String(parts[1])
        let split = RequestHead.splitTarget(target)
        var head = RequestHead(
            method: String(parts[0]), target: target, path: split.path, rawQuery: split.rawQuery,
            queryItems: split.items, version: version, headers: headers, bodyFraming: .none
        )
        switch framing(of: head) {
        case .success(let framing):
            head.bodyFraming = framing
        case .failure(let error):
            return .invalid(error.reason)
        }
        return .complete(head, consumed: consumed)
    }

    private static func parseVersion(_ text: Substring) -> (major: Int, minor: Int)? {
        guard text.hasPrefix("HTTP/") else { return nil }
        let numbers = text.dropFirst(5).split(separator: ".", omittingEmptySubsequences: false)
        guard numbers.count == 2, let major = Int(numbers[0]), let minor = Int(numbers[1]),
              major == 1, (0...9).contains(minor)
        else { return nil }
        return (major, minor)
    }

    /// Why a head's body framing is unacceptable.
    struct FramingError: Error {
        let reason: String
    }

    /// Derives the body framing from `Transfer-Encoding` and `Content-Length` (RFC 9112 §6.3).
    static func framing(of head: RequestHead) -> Result<RequestHead.BodyFraming, FramingError> {
        let codings = head.headerValues("Transfer-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        if !codings.isEmpty {
            guard codings == ["chunked"] else {
                return .failure(FramingError(reason: "unsupported transfer coding"))
            }
            guard head.isHTTP11 else {
                return .failure(FramingError(reason: "chunked transfer coding in HTTP/1.0"))
            }
            return .success(.chunked)
        }
        let lengths = head.headerValues("Content-Length")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lengths.first else { return .success(.none) }
        guard lengths.allSatisfy({ $0 == first }), first.allSatisfy(\.isASCII),
              let length = Int(first), length >= 0, first.allSatisfy(\.isNumber)
        else {
            return .failure(FramingError(reason: "invalid Content-Length"))
        }
        return .success(length == 0 ? .none : .length(length))
    }
}
