import Foundation

/// Where each download's file goes: its name from the URL path or a `Content-Disposition` file
/// name, made safe, and never one that is taken (unless `--force`).
public enum FileNaming {
    /// The name used when the URL path ends in `/` or is empty (as wget does).
    public static let indexName = "index.html"

    /// The sanitised last path component of `url` (percent-decoded), else ``indexName``.
    public static func name(for url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? ""
        guard !path.hasSuffix("/"), let last = path.split(separator: "/").last,
              let decoded = last.removingPercentEncoding ?? Optional(String(last))
        else { return indexName }
        return sanitize(decoded) ?? indexName
    }

    /// The sanitised file name of a `Content-Disposition` value (`filename*` preferred), or `nil`.
    public static func name(contentDisposition value: String) -> String? {
        var plain: String?
        var extended: String?
        for piece in parameters(of: value) {
            guard let equals = piece.firstIndex(of: "=") else { continue }
            let key = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let raw = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key == "filename" { plain = unquoted(raw) }
            if key == "filename*" { extended = decodedExtended(raw) }
        }
        return (extended ?? plain).flatMap(sanitize)
    }

    /// One safe file name made from untrusted text, or `nil` when nothing usable is left.
    ///
    /// Keeps only what follows the last `/` or `\`; removes control and format characters (bidi
    /// overrides, zero-width joiners); trims whitespace and leading dots (no hidden file, no `.` or
    /// `..`); cuts to 255 UTF-8 bytes; and renames a name ending in `.partial` or `.partial.json`
    /// (the library's partial files) by appending `.download`.
    public static func sanitize(_ raw: String) -> String? {
        guard let last = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last else { return nil }
        var scalars = String.UnicodeScalarView()
        for scalar in last.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: continue
            default: scalars.append(scalar)
            }
        }
        var name = Substring(String(scalars))
        func trim() {
            while let first = name.first, first == "." || first.isWhitespace { name.removeFirst() }
            while let last = name.last, last.isWhitespace { name.removeLast() }
        }
        trim()
        while name.utf8.count > 255 { name.removeLast() }
        trim()
        guard !name.isEmpty else { return nil }
        if name.hasSuffix(".partial") || name.hasSuffix(".partial.json") { return String(name) + ".download" }
        return String(name)
    }

    /// `name` with `-n` before its extension: `report.pdf` → `report-2.pdf`,
    /// `data.tar.gz` → `data-2.tar.gz`, `README` → `README-2`.
    public static func numbered(_ name: String, _ number: Int) -> String {
        var stem = Substring(name)
        var suffix = Substring("")
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            stem = name[..<dot]
            suffix = name[dot...]
            if stem.lowercased().hasSuffix(".tar"), stem.count > 4 {
                suffix = name[name.index(dot, offsetBy: -4)...]
                stem = name[..<name.index(dot, offsetBy: -4)]
            }
        }
        return "\(stem)-\(number)\(suffix)"
    }

    /// The pieces of a header value split at semicolons outside quotes.
    static func parameters(of value: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped { escaped = false } else if quoted && character == "\\" { escaped = true } else if character == "\"" {
                quoted.toggle()
            } else if character == ";" && !quoted {
                pieces.append(current)
                current = ""
                continue
            }
            current.append(character)
        }
        pieces.append(current)
        return pieces.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") else { return value }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if !escaped && character == "\\" { escaped = true; continue }
            escaped = false
            result.append(character)
        }
        return result
    }

    /// RFC 8187 `charset'language'percent-encoded`; UTF-8 and ISO-8859-1.
    private static func decodedExtended(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var iterator = pieces[2].utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%"), let high = iterator.next(), let low = iterator.next(),
               let decoded = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) {
                bytes.append(decoded)
            } else {
                bytes.append(byte)
            }
        }
        switch pieces[0].lowercased() {
        case "utf-8": return String(bytes: bytes, encoding: .utf8)
        case "iso-8859-1": return String(bytes: bytes, encoding: .isoLatin1)
        default: return nil
        }
    }
}

/// The names taken during one run: a pure rule, given what exists on disk.
///
/// A name is free when no earlier download of this run claimed it and — unless `force` — no file
/// of that name exists. A taken name gets `-1`, `-2`, … before its extension
/// (``FileNaming/numbered(_:_:)``). With `force` an existing file is overwritten, but two
/// downloads of one run still never share a name. A `NAME.partial` file is not a collision: it is
/// what `--resume` continues.
public struct NameClaims: Sendable {
    /// Names claimed so far in this run.
    public private(set) var claimed: Set<String> = []

    /// No name claimed.
    public init() {}

    /// Claims the first free name among `name`, `name-1`, `name-2`, … and returns it.
    public mutating func claim(_ name: String, force: Bool, exists: (String) -> Bool) -> String {
        var candidate = name
        var number = 0
        while claimed.contains(candidate) || (!force && exists(candidate)) {
            number += 1
            candidate = FileNaming.numbered(name, number)
        }
        claimed.insert(candidate)
        return candidate
    }

    /// Gives `name` back (a download that moved to its `Content-Disposition` name).
    public mutating func release(_ name: String) {
        claimed.remove(name)
    }
}
