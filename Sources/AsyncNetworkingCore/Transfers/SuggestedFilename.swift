import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The file name a server suggests for a download, made safe to use inside a destination directory.
///
/// The server's `Content-Disposition` is untrusted input: a name such as `../../etc/passwd`,
/// `/etc/passwd` or `..\\..\\boot.ini` must never write outside the directory. The sanitised name
/// is a single path component: no separators, no control or format characters (no bidi overrides),
/// no combining-mark floods, no leading dots (so neither `.` nor `..`, nor a hidden file), at most
/// 255 UTF-8 bytes.
enum SuggestedFilename {
    /// The name to use when neither the response nor the URL suggests one.
    static let fallback = "download"

    /// The sanitised name from `Content-Disposition` (`filename*` preferred over `filename`), else
    /// from the last path component of the response's or the request's URL, else ``fallback``.
    static func make(for response: HTTPURLResponse, requestURL: URL?) -> String {
        if let header = response.value(forHTTPHeaderField: "Content-Disposition"),
           let raw = filename(fromContentDisposition: header),
           let name = sanitize(raw) {
            return name
        }
        for url in [response.url, requestURL] {
            if let last = url?.lastPathComponent, let name = sanitize(last) { return name }
        }
        return fallback
    }

    /// The raw `filename*` (RFC 8187, decoded) or `filename` parameter of a `Content-Disposition` value.
    static func filename(fromContentDisposition value: String) -> String? {
        var plain: String?
        var extended: String?
        for piece in HeaderField.split(value, at: ";") {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let key = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let rawValue = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "filename": plain = unquote(rawValue)
            case "filename*": extended = decodeExtended(rawValue)
            default: break
            }
        }
        return extended ?? plain
    }

    /// The most combining marks kept after one base character (a flood of them makes a single
    /// enormous grapheme that hides what follows it, or defeats truncation).
    static let maxCombiningMarksPerBase = 4

    /// One safe path component made from `raw`, or `nil` when nothing usable is left.
    ///
    /// Removed: everything up to the last `/` or `\\`; control characters (Cc), format characters
    /// (Cf: bidi overrides such as U+202E, zero-width joiners), line and paragraph separators;
    /// combining marks past ``maxCombiningMarksPerBase`` per base character (and any before the
    /// first base); leading and trailing whitespace; leading dots — also after cutting the name to
    /// 255 UTF-8 bytes, so the result is never a hidden file, `.` or `..`.
    static func sanitize(_ raw: String) -> String? {
        // Only what follows the last separator of either kind; an absolute path loses its root.
        guard let last = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last else { return nil }
        var name = cleanScalars(last.unicodeScalars)
        name = trimmed(name)
        name = truncated(name, toUTF8Bytes: 255)
        name = trimmed(name)
        return name.isEmpty ? nil : name
    }

    /// Drops control, format and separator characters and caps runs of combining marks.
    private static func cleanScalars(_ scalars: Substring.UnicodeScalarView) -> String {
        var kept = String.UnicodeScalarView()
        var marksAfterBase: Int?  // nil until a base character has been kept
        for scalar in scalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse:
                continue
            case .nonspacingMark, .spacingMark, .enclosingMark:
                guard let count = marksAfterBase, count < maxCombiningMarksPerBase else { continue }
                marksAfterBase = count + 1
            default:
                marksAfterBase = 0
            }
            kept.append(scalar)
        }
        return String(kept)
    }

    /// `name` without leading or trailing whitespace, nor leading dots, until neither is left.
    private static func trimmed(_ name: String) -> String {
        var name = Substring(name)
        while let first = name.first, first == "." || first.isWhitespace { name.removeFirst() }
        while let last = name.last, last.isWhitespace { name.removeLast() }
        return String(name)
    }

    /// `name` cut to at most `limit` UTF-8 bytes, keeping a short extension when there is one and
    /// something is left before it; otherwise the end of the name is cut.
    private static func truncated(_ name: String, toUTF8Bytes limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        var base = Substring(name)
        var pathExtension = Substring("")
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 16 {
            base = name[..<dot]
            pathExtension = name[dot...]
        }
        while base.utf8.count + pathExtension.utf8.count > limit, !base.isEmpty { base.removeLast() }
        if base.isEmpty {
            // Nothing would be left before the extension (a name like `<one huge grapheme>.htaccess`):
            // cut the whole name instead, so it cannot turn into a bare dot file.
            var whole = Substring(name)
            while whole.utf8.count > limit, !whole.isEmpty { whole.removeLast() }
            return String(whole)
        }
        return String(base + pathExtension)
    }

    private static func unquote(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// `charset'language'percent-encoded` (RFC 8187); UTF-8 and ISO-8859-1 are understood.
    private static func decodeExtended(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        let charset = pieces[0].lowercased()
        var bytes: [UInt8] = []
        var iterator = pieces[2].utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        switch charset {
        case "utf-8": return String(bytes: bytes, encoding: .utf8)
        case "iso-8859-1": return String(bytes: bytes, encoding: .isoLatin1)
        default: return nil
        }
    }
}
