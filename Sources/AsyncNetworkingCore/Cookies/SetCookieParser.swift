import Foundation

/// One `Set-Cookie` field value as RFC 6265bis §5.6 parses it, before the storage model decides
/// about it (pure: no request, no jar).
struct ParsedSetCookie: Sendable, Equatable {
    var name: String
    var value: String
    /// From `Expires` (a date) and `Max-Age` (seconds; `Max-Age` wins when both are present,
    /// whatever their order). `nil`: a session cookie.
    var expiry: Expiry?
    /// `Domain`, lowercased, without its leading dot; `nil` when absent or empty.
    var domain: String?
    /// `Path` when it starts with `/`; `nil` otherwise (the default path is used).
    var path: String?
    /// Whether a `Path` attribute was given at all (even an empty or invalid one, which gives the
    /// default path, §5.6.5): the `__Host-` prefix requires one (§5.7).
    var hasPathAttribute = false
    var secure = false
    var httpOnly = false
    var sameSite: SameSitePolicy = .unspecified

    enum Expiry: Sendable, Equatable {
        /// `Expires=` date.
        case date(Date)
        /// `Max-Age=` seconds (≤ 0: expire at once).
        case maxAge(Int64)
    }

    /// The cookie's expiry time received at `now`: `Max-Age` first, then `Expires`, both capped at
    /// 400 days (RFC 6265bis §5.6.1–2).
    func expiryDate(receivedAt now: Date) -> Date? {
        let cap = now.addingTimeInterval(CookieRules.maximumLifetime)
        switch expiry {
        case nil: return nil
        case .maxAge(let seconds) where seconds <= 0: return .distantPast
        case .maxAge(let seconds): return min(cap, now.addingTimeInterval(TimeInterval(seconds)))
        case .date(let date): return min(cap, date)
        }
    }
}

/// RFC 6265bis §5.6: a `Set-Cookie` value into name, value and attributes.
enum SetCookieParser {
    /// The cookie, or `nil` when the value must be ignored entirely: a control character (other
    /// than HTAB), an empty name and value, or a name and value longer than 4096 bytes together.
    /// Unknown attributes are ignored; an attribute value longer than 1024 bytes is ignored.
    static func parse(_ line: String) -> ParsedSetCookie? {
        guard !line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
        let pairEnd = line.firstIndex(of: ";") ?? line.endIndex
        let pair = line[..<pairEnd]
        let name: Substring, value: Substring
        if let equals = pair.firstIndex(of: "=") {
            (name, value) = (pair[..<equals], pair[pair.index(after: equals)...])
        } else {
            (name, value) = ("", pair) // a nameless cookie (§5.6 step 3)
        }
        var cookie = ParsedSetCookie(name: trimmed(name), value: trimmed(value))
        guard !(cookie.name.isEmpty && cookie.value.isEmpty),
              cookie.name.utf8.count + cookie.value.utf8.count <= 4096 else { return nil }
        var maxAge: Int64?, expires: Date?
        for attribute in line[pairEnd...].split(separator: ";", omittingEmptySubsequences: true) {
            let attributeName: String, attributeValue: String
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = trimmed(attribute[..<equals]).lowercased()
                attributeValue = trimmed(attribute[attribute.index(after: equals)...])
            } else {
                (attributeName, attributeValue) = (trimmed(attribute).lowercased(), "")
            }
            guard attributeValue.utf8.count <= 1024 else { continue }
            switch attributeName {
            case "expires":
                if let date = CookieDateParser.parse(attributeValue) { expires = date }
            case "max-age":
                if let seconds = parseMaxAge(attributeValue) { maxAge = seconds }
            case "domain":
                var domain = Substring(attributeValue)
                if domain.first == "." { domain = domain.dropFirst() }
                cookie.domain = domain.isEmpty ? nil : domain.lowercased()
            case "path":
                cookie.path = attributeValue.first == "/" ? attributeValue : nil
                cookie.hasPathAttribute = true
            case "secure": cookie.secure = true
            case "httponly": cookie.httpOnly = true
            case "samesite":
                switch attributeValue.lowercased() {
                case "strict": cookie.sameSite = .strict
                case "lax": cookie.sameSite = .lax
                case "none": cookie.sameSite = .none
                default: cookie.sameSite = .unspecified
                }
            default: continue
            }
        }
        cookie.expiry = maxAge.map(ParsedSetCookie.Expiry.maxAge) ?? expires.map(ParsedSetCookie.Expiry.date)
        return cookie
    }

    /// `-`? DIGIT+ (§5.6.2); anything else ignores the attribute. Huge values saturate.
    private static func parseMaxAge(_ text: String) -> Int64? {
        var digits = Substring(text)
        let negative = digits.first == "-"
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let magnitude = Int64(digits) ?? Int64.max
        return negative ? -magnitude : magnitude
    }

    /// Without leading and trailing spaces and tabs. (Index moves on the slice: reversing it twice
    /// rebuilt the text a character at a time, the parser's main cost on a 4 KiB value.)
    static func trimmed(_ text: Substring) -> String {
        var view = text
        while let first = view.first, first == " " || first == "\t" { view.removeFirst() }
        while let last = view.last, last == " " || last == "\t" { view.removeLast() }
        return String(view)
    }

    /// Splits a `Set-Cookie` value that Foundation combined from several fields with `", "` (an
    /// `HTTPURLResponse` from URLSession): a comma starts a new cookie only when what follows it,
    /// up to the next `;` or `,`, is a `name=value` pair — so the comma of `Expires=Wed, 21 Oct …`
    /// stays inside its cookie.
    static func splitCombined(_ combined: String) -> [String] {
        var parts: [String] = []
        var start = combined.startIndex
        var index = combined.startIndex
        while let comma = combined[index...].firstIndex(of: ",") {
            let after = combined.index(after: comma)
            let next = combined[after...].prefix { $0 != ";" && $0 != "," }
            if let equals = next.firstIndex(of: "="), !trimmed(next[..<equals]).isEmpty,
               !trimmed(next[..<equals]).contains(" ") {
                parts.append(String(combined[start..<comma]))
                start = after
            }
            index = after
        }
        parts.append(String(combined[start...]))
        return parts.map { trimmed(Substring($0)) }.filter { !$0.isEmpty }
    }
}
