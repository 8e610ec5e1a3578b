import Foundation

/// Removes secrets from text meant for logs: URL user info (`user:password@`), query and fragment
/// values (which often carry tokens such as `access_token`), and the values of credential headers
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`). Paths, hosts and ports stay.
package enum Redaction {
    /// What replaces a removed query or fragment.
    package static let placeholder = "…"

    /// Header names whose values are never printed.
    package static let secretHeaderNames = ["proxy-authorization", "authorization", "set-cookie", "cookie"]

    /// `url` without user, password, query or fragment, or a placeholder when there is no URL.
    package static func url(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return urlString(url.absoluteString)
        }
        components.user = nil
        components.password = nil
        let hadQuery = components.query != nil
        components.query = nil
        components.fragment = nil
        guard let string = components.string else { return urlString(url.absoluteString) }
        return hadQuery ? string + "?" + placeholder : string
    }

    /// A URL-like string (possibly malformed, possibly relative) with its user info removed and its
    /// query and fragment replaced by ``placeholder``.
    package static func urlString(_ text: some StringProtocol) -> String {
        var token = Substring(text)
        var suffix = ""
        if let mark = token.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            if token.index(after: mark) < token.endIndex { suffix = String(token[mark]) + placeholder }
            token = token[..<mark]
        }
        if let at = token.lastIndex(of: "@") {
            // The user info runs from the start of the authority (after `//`, `=`, `:` of a key, or
            // the start) to the last `@`; nothing else in a URL before the path has an `@`.
            let before = token[..<at]
            let start: Substring.Index
            if let slashes = before.range(of: "//", options: .backwards) {
                start = slashes.upperBound
            } else if let equals = before.lastIndex(of: "=") {
                start = before.index(after: equals)
            } else {
                start = before.startIndex
            }
            if !token[start..<at].contains("/") {
                token = token[..<start] + token[token.index(after: at)...]
            }
        }
        return String(token) + suffix
    }

    /// Free text (an error message, another error's description) with every URL-like word passed
    /// through ``urlString(_:)`` and credential header values replaced by `<redacted>`.
    static func text(_ text: String) -> String {
        let headersRedacted = redactHeaderValues(text)
        var result = ""
        var word = ""
        func flush() {
            if word.contains("://") || word.contains("@") || word.contains("?") {
                result += urlString(word)
            } else {
                result += word
            }
            word = ""
        }
        for character in headersRedacted {
            if character.isWhitespace || "\"'<>{}(),;|`".contains(character) {
                flush()
                result.append(character)
            } else {
                word.append(character)
            }
        }
        flush()
        return result
    }

    /// Replaces what follows `Name:` or `Name=` for each secret header name, up to the end of the line.
    private static func redactHeaderValues(_ text: String) -> String {
        let lowered = text.lowercased()
        guard secretHeaderNames.contains(where: { lowered.contains($0) }) else { return text }
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append(redactHeaderValue(in: String(line)))
        }
        return lines.joined(separator: "\n")
    }

    private static func redactHeaderValue(in line: String) -> String {
        var earliest: String.Index?
        for name in secretHeaderNames {
            var searchStart = line.startIndex
            while let range = line.range(of: name, options: .caseInsensitive, range: searchStart..<line.endIndex) {
                searchStart = range.upperBound
                let after = line[range.upperBound...].drop(while: { $0 == " " || $0 == "\"" })
                guard let separator = after.first, separator == ":" || separator == "=" else { continue }
                let valueStart = after.index(after: after.startIndex)
                if earliest.map({ valueStart < $0 }) ?? true { earliest = valueStart }
                break
            }
        }
        guard let earliest else { return line }
        return line[..<earliest] + " <redacted>"
    }
}
