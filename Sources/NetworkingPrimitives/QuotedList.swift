import Foundation

/// Lists written as text with quoted strings: header field values and their parameters.
package enum QuotedList {
    /// The pieces of `value` cut at `separator` where it stands outside a quoted string (in which a
    /// backslash escapes the next character), each trimmed of spaces; empty pieces are dropped.
    /// Quotes and backslashes are kept: `a="x,y", b` at `,` is `a="x,y"` and `b`.
    package static func split(_ value: String, at separator: Character) -> [String] {
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
            } else if character == separator && !quoted {
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
