import Foundation

/// What a cookie record must look like to be in a ``CookieJar``: what a valid `Set-Cookie` could
/// have produced (RFC 6265bis §5.6 and §5.7). Cookies parsed from responses are so by
/// construction; ``CookieJar/insert(_:)`` and a jar file's records are checked, so a jar never
/// holds a value that would break the `Cookie` field it is sent in (`\r\n` starting a field of its
/// own). The storage model's policies (`Secure` from `https`, prefixes, `SameSite=None`) are not
/// applied: an inserted cookie is the caller's.
extension StoredCookie {
    /// Why this record could not have come from a valid `Set-Cookie`, or `nil` when it could. The
    /// text names the cookie, never its value.
    var invalidity: String? {
        // The name and value are what the parser makes of `name=value` (or of `value` alone for a
        // nameless cookie): no control character but HTAB, no `;`, no `=` in the name, nothing to
        // trim, not both empty, at most 4096 bytes together.
        guard let parsed = SetCookieParser.parse(pair), parsed.name == name, parsed.value == value else {
            return "the cookie \(name.debugDescription) has a name or value no Set-Cookie can set "
                + "(a control character, ';', '=' in the name, surrounding spaces, both empty, or over 4096 bytes)"
        }
        guard !domain.isEmpty, domain.first != ".", domain.utf8.count <= 1024,
              domain.utf8.allSatisfy({ $0 > 0x20 && $0 != 0x7F && !Self.domainExcluded.contains($0) && !(0x41...0x5A).contains($0) }) else {
            return "the cookie \(name.debugDescription) has a domain no Set-Cookie can set (empty, a leading dot, upper case, a space, a control character or one of ;,/)"
        }
        guard path.first == "/", path.utf8.count <= 1024, path.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: ";") }) else {
            return "the cookie \(name.debugDescription) has a path no Set-Cookie can set (not starting with /, a control character or ;)"
        }
        return nil
    }

    private static let domainExcluded = Set(";,/".utf8)
}
