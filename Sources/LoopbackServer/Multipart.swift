import Foundation

/// A parser for `multipart/form-data` bodies (RFC 7578) held in memory. Pure.
enum Multipart {
    /// One part of a form.
    struct Part: Sendable, Equatable {
        /// The `name` parameter of `Content-Disposition`.
        var name: String
        /// The `filename` parameter, if any.
        var filename: String?
        /// The part's `Content-Type`, if any.
        var contentType: String?
        /// Where the part's content lies in the body.
        var content: Range<Int>
    }

    /// The body does not follow the multipart grammar.
    struct MalformedError: Error, Equatable {
        /// What was wrong, suitable for a 400 body.
        let reason: String
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, unquoted.
    static func boundary(fromContentType contentType: String) -> String? {
        let pieces = QuotedList.split(contentType, at: ";")
        guard let type = pieces.first, type.lowercased().hasPrefix("multipart/") else { return nil }
        for piece in pieces.dropFirst() {
            if let (name, value) = parameter(piece), name == "boundary", !value.isEmpty { return value }
        }
        return nil
    }

    /// Splits `body` into parts delimited by `--boundary` lines.
    static func parse(_ body: [UInt8], boundary: String) throws(MalformedError) -> [Part] {
        let delimiter = Array("--\(boundary)".utf8)
        let crlf: [UInt8] = [13, 10]
        // The first delimiter: at the very start or after a CRLF (a preamble may precede it).
        var position: Int
        if body.starts(with: delimiter) {
            position = delimiter.count
        } else if let found = find(crlf + delimiter, in: body, from: 0) {
            position = found + 2 + delimiter.count
        } else {
            throw MalformedError(reason: "boundary not found")
        }
        var parts: [Part] = []
        while true {
            if body[position...].starts(with: [45, 45]) { return parts } // "--": close delimiter
            // Transport padding, then CRLF.
            while position < body.count && (body[position] == 32 || body[position] == 9) { position += 1 }
            guard body[position...].starts(with: crlf) else {
                throw MalformedError(reason: "delimiter not followed by CRLF")
            }
            position += 2
            if body[position...].starts(with: crlf) {
                throw MalformedError(reason: "part without Content-Disposition")
            }
            guard let headerEnd = find(crlf + crlf, in: body, from: position) else {
                throw MalformedError(reason: "part headers not terminated")
            }
            let headerText = String(decoding: body[position..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let contentEnd = find(crlf + delimiter, in: body, from: contentStart) else {
                throw MalformedError(reason: "closing boundary not found")
            }
            parts.append(try makePart(headers: headerText, content: contentStart..<contentEnd))
            position = contentEnd + 2 + delimiter.count
        }
    }

    private static func makePart(headers: String, content: Range<Int>) throws(MalformedError) -> Part {
        var disposition: String?
        var contentType: String?
        for line in headers.components(separatedBy: "\r\n") where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else {
                throw MalformedError(reason: "part header line without a colon")
            }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-disposition" { disposition = value }
            if name == "content-type" { contentType = value }
        }
        guard let disposition else { throw MalformedError(reason: "part without Content-Disposition") }
        let pieces = QuotedList.split(disposition, at: ";")
        guard pieces.first?.lowercased() == "form-data" else {
            throw MalformedError(reason: "Content-Disposition is not form-data")
        }
        var name: String?
        var filename: String?
        for piece in pieces.dropFirst() {
            guard let (key, value) = parameter(piece) else { continue }
            if key == "name" { name = value }
            if key == "filename" { filename = value }
        }
        guard let name else { throw MalformedError(reason: "part without a name") }
        return Part(name: name, filename: filename, contentType: contentType, content: content)
    }

    /// Splits `key=value` (value optionally quoted, with backslash escapes); the key is lowercased.
    static func parameter(_ piece: String) -> (String, String)? {
        guard let equals = piece.firstIndex(of: "=") else { return nil }
        let key = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
        var value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") {
            value = String(value.dropFirst().dropLast())
            var unescaped = ""
            var escaped = false
            for character in value {
                if escaped || character != "\\" {
                    unescaped.append(character)
                    escaped = false
                } else {
                    escaped = true
                }
            }
            value = unescaped
        }
        return (key, value)
    }

    /// The index of the first occurrence of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pattern in
                let first = pattern[0]
                var index = start
                let last = hay.count - pattern.count
                outer: while index <= last {
                    if hay[index] != first {
                        index += 1
                        continue
                    }
                    for offset in 1..<pattern.count where hay[index + offset] != pattern[offset] {
                        index += 1
                        continue outer
                    }
                    return index
                }
                return nil
            }
        }
    }
}
