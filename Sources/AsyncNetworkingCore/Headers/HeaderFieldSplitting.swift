import Foundation

/// Header field values read as lists.
package enum HeaderField {
    /// The pieces of a field value cut at `separator` where it stands outside a quoted string (in
    /// which a backslash escapes the next character), each trimmed of spaces; empty pieces are
    /// dropped. Quotes and backslashes are kept: `a="x,y", b` at `,` is `a="x,y"` and `b`.
    package static func split(_ value: String, at separator: Character) -> [String] {
        QuotedList.split(value, at: separator)
    }
}
