import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The file name a server suggests for a download, made safe to use inside a destination directory.
///
/// The server's `Content-Disposition` is untrusted input: a name such as `../../etc/passwd`,
/// `/etc/passwd` or `..\\..\\boot.ini` must never write outside the directory. The sanitised name
/// is a single path component: no separators, no control characters, no leading dots (so neither
/// `.` nor `..`, nor a hidden file), at most 255 UTF-8 bytes.
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
        for piece in splitParameters(value) {
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

    /// One safe path component made from `raw`, or `nil` when nothing usable is left.
    static func sanitize(_ raw: String) -> String? {
        // Only what follows the last separator of either kind; an absolute path loses its root.
        guard let last = raw.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last else { return nil }
        let scalars = last.unicodeScalars.filter { scalar in
            scalar.value >= 0x20 && scalar.value != 0x7F && !(0x80...0x9F).contains(scalar.value)
        }
        var name = String(String.UnicodeScalarView(scalars)).trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        name = name.trimmingCharacters(in: .whitespaces)
        name = truncated(name, toUTF8Bytes: 255)
        return name.isEmpty ? nil : name
    }

    /// `name` cut to at most `limit` UTF-8 bytes, keeping a short extension when there is one.
    private static func truncated(_ name: String, toUTF8Bytes limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        var base = Substring(name)
        var pathExtension = Substring("")
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 16 {
            base = name[..<dot]
            pathExtension = name[dot...]
        }
        while base.utf8.count + pathExtension.utf8.count > limit, !base.isEmpty { base.removeLast() }
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

    /// Splits a header value at semicolons outside quotes.
    private static func splitParameters(_ value: String) -> [String] {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ";" && !quoted {
                pieces.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            }
            current.append(character)
        }
        pieces.append(current.trimmingCharacters(in: .whitespaces))
        return pieces.filter { !$0.isEmpty }
    }
}
