import Foundation

/// Removes secrets from text meant for logs: URL user info (`user:password@`), query and fragment
/// values (which often carry tokens such as `access_token`), and the values of credential headers
/// (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`). Paths, hosts and ports stay.
///
/// A query component without `=` (`?sk_live_…`) is a value, never a name: error descriptions
/// replace the whole query by `…`; the printers that keep query names (HAR, `LoggingMonitor`,
/// cURL descriptions) replace each value and each bare component by `…`.
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

    /// `url` without user and password, its fragment replaced by ``placeholder`` and each query
    /// component redacted as ``queryComponent(name:value:)`` says (`?a=…&…`): what logs, HAR files
    /// and cURL commands print, where the query's names help and its values may be secrets.
    package static func urlKeepingQueryNames(_ url: URL?) -> String {
        guard let url else { return "(no URL)" }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return self.url(url) }
        components.user = nil
        components.password = nil
        if components.fragment != nil { components.fragment = placeholder }
        let query = components.percentEncodedQuery
        components.percentEncodedQuery = nil
        guard var text = components.string else { return self.url(url) }
        if let query {
            let redacted = "?" + query.split(separator: "&", omittingEmptySubsequences: false).map { component in
                guard let equals = component.firstIndex(of: "=") else { return component.isEmpty ? "" : placeholder }
                return String(component[..<equals]) + "=" + placeholder
            }.joined(separator: "&")
            if let hash = text.firstIndex(of: "#") { text.insert(contentsOf: redacted, at: hash) } else { text += redacted }
        }
        return text
    }

    /// One query component redacted: a `name=value` pair keeps its name (`name=…`); a component
    /// without `=` is a value — a bare token such as `?sk_live_…` — and becomes ``placeholder``
    /// whole (an empty one stays empty). Returned as HAR's name and value: (`name`, `…`) or (`…`, ``).
    package static func queryComponent(name: String, value: String?) -> (name: String, value: String) {
        value == nil ? (name.isEmpty ? "" : placeholder, "") : (name, placeholder)
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
