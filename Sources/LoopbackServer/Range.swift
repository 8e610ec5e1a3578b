import Foundation

/// Single byte-range requests (`Range: bytes=…`, RFC 9110 §14) and `If-Range`. Pure.
enum ByteRange {
    /// What to send for a representation given its `Range` header.
    enum Outcome: Sendable, Equatable {
        /// The whole representation with 200 (no or ignorable Range, or several ranges).
        case full
        /// The bytes `start...end` (inclusive) with 206.
        case partial(start: Int, end: Int)
        /// 416 with `Content-Range: bytes */length`.
        case unsatisfiable
    }

    /// Evaluates a `Range` header value against a representation of `length` bytes.
    ///
    /// Accepts `bytes=a-b`, `bytes=a-` and `bytes=-n`. A header that does not parse is ignored
    /// (`.full`), as RFC 9110 allows; so is a request for several ranges.
    static func evaluate(_ header: String, length: Int) -> Outcome {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "="),
              trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes"
        else { return .full }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",")
        guard specs.count == 1 else { return .full }
        let spec = specs[0].trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { return .full }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        guard first.allSatisfy(\.isASCII), last.allSatisfy(\.isASCII) else { return .full }
        if first.isEmpty {
            // Suffix range: the last n bytes.
            guard let suffix = Int(last), suffix >= 0 else { return .full }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .partial(start: max(0, length - suffix), end: length - 1)
        }
        guard let start = Int(first), start >= 0, first.allSatisfy(\.isNumber) else { return .full }
        var end = length - 1
        if !last.isEmpty {
            guard let requestedEnd = Int(last), last.allSatisfy(\.isNumber), requestedEnd >= start else { return .full }
            end = min(requestedEnd, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .partial(start: start, end: end)
    }

    /// Whether an `If-Range` value matches the current representation, so the Range may be honoured.
    ///
    /// An entity tag matches only if it is strong and identical to `etag`; a date matches only
    /// if it equals `lastModified` (epoch seconds) exactly.
    static func ifRangeMatches(_ value: String, etag: String, lastModified: Int) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("W/") { return false }
        if trimmed.hasPrefix("\"") { return trimmed == etag }
        return HTTPDate.parse(trimmed) == lastModified
    }
}
