/// One challenge of a `WWW-Authenticate` or `Proxy-Authenticate` field (RFC 9110 §11.6.1,
/// §11.7.1): an authentication scheme with either a `token68` or a list of parameters.
///
/// A field holds a comma-separated list of challenges, and a response may send the field several
/// times (the lists are concatenated): ``parse(_:)`` reads every challenge of every field, in
/// order, so `Bearer realm="api", Basic realm="site"` offers Basic as much as `Basic realm="site"`.
///
/// The grammar (RFC 9110 §11.2, §11.6.1, §5.6):
///
///     challenge  = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
///     auth-param = token BWS "=" BWS ( token / quoted-string )
///     token68    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
///
/// Commas separate both challenges and the parameters of one challenge: an element shaped
/// `name=value` is a parameter of the challenge before it, any other element starts a new
/// challenge. Quoted strings may hold commas and escaped quotes (`\"`); their values are
/// unescaped. Parsing is lenient where it can be safely: empty list elements and whitespace are
/// skipped; an element that fits no rule is dropped up to the next comma outside quotes; a
/// parameter repeated in one challenge keeps its first value (RFC 9110 §11.2 forbids repeats);
/// an unterminated quoted string ends the parse (nothing after it can be delimited). Linear in
/// the input, no recursion, never traps.
package struct AuthenticationChallenge: Sendable, Hashable {
    /// One `name=value` parameter: the name lowercased (names are case-insensitive), the value
    /// as sent (a quoted string unescaped).
    package struct Parameter: Sendable, Hashable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The authentication scheme, lowercased (`basic`, `digest`, `bearer`, …: case-insensitive).
    package var scheme: String
    /// The `token68` after the scheme, when the challenge has one instead of parameters.
    package var token68: String?
    /// The parameters, in order.
    package var parameters: [Parameter]

    package init(scheme: String, token68: String? = nil, parameters: [Parameter] = []) {
        self.scheme = scheme.lowercased()
        self.token68 = token68
        self.parameters = parameters
    }

    /// The value of the parameter `name` (case-insensitive), if present.
    package func parameter(_ name: String) -> String? {
        let lowered = name.lowercased()
        return parameters.first { $0.name == lowered }?.value
    }

    /// The `realm` parameter, if present.
    package var realm: String? { parameter("realm") }

    /// Every challenge of every field value, in order (a field repeated in a response gives one
    /// value per field; a value Foundation combined with `", "` parses the same).
    package static func parse(_ fieldValues: [String]) -> [AuthenticationChallenge] {
        fieldValues.flatMap { parse($0) }
    }

    /// Every challenge of one field value, in order.
    package static func parse(_ fieldValue: String) -> [AuthenticationChallenge] {
        var scanner = ChallengeScanner(Array(fieldValue.utf8))
        return scanner.challenges()
    }

    /// The first challenge of `scheme` (case-insensitive) among `challenges`.
    package static func first(_ scheme: String, in challenges: [AuthenticationChallenge]) -> AuthenticationChallenge? {
        let lowered = scheme.lowercased()
        return challenges.first { $0.scheme == lowered }
    }
}

/// The byte-level reader behind ``AuthenticationChallenge/parse(_:)``.
private struct ChallengeScanner {
    private let bytes: [UInt8]
    private var index = 0
    /// An unterminated quoted string was met: stop.
    private var broken = false

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private var atEnd: Bool { index >= bytes.count }
    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func challenges() -> [AuthenticationChallenge] {
        var found: [AuthenticationChallenge] = []
        while !broken {
            skipSeparators()
            if atEnd { break }
            let start = index
            guard let scheme = token() else {
                skipElement()
                continue
            }
            // After the scheme: the end, a comma, or spaces and then its token68 or parameters.
            let spaces = skipWhitespace()
            guard atEnd || current == UInt8(ascii: ",") || spaces > 0 else {
                index = start
                skipElement()
                continue
            }
            var challenge = AuthenticationChallenge(scheme: scheme)
            if !atEnd, current != UInt8(ascii: ",") {
                if let parameter = parameter() {
                    challenge.parameters.append(parameter)
                    readParameters(into: &challenge)
                } else if let value = token68() {
                    challenge.token68 = value
                } else if startsParameter() {
                    skipElement() // a bad first parameter: the others are still read
                    readParameters(into: &challenge)
                } else {
                    skipElement()
                }
            }
            if !broken { found.append(challenge) }
            // Whatever is left of this element (junk after a value) is dropped.
            skipWhitespace()
            if !atEnd, current != UInt8(ascii: ",") { skipElement() }
        }
        return found
    }

    /// The further parameters of a challenge: elements shaped `name=…` after commas. Stops
    /// before an element that starts a new challenge.
    private mutating func readParameters(into challenge: inout AuthenticationChallenge) {
        while !broken {
            let save = index
            skipWhitespace()
            guard current == UInt8(ascii: ",") else {
                index = save
                return
            }
            skipSeparators()
            if atEnd { return }
            if let parameter = parameter() {
                if challenge.parameter(parameter.name) == nil { challenge.parameters.append(parameter) }
                continue
            }
            if broken { return }
            if startsParameter() {
                skipElement() // `name =` with a value that fits neither form: a bad parameter
                continue
            }
            index = save // a new challenge starts after this comma
            return
        }
    }

    /// Whether a `token BWS "="` starts at the index (which is left unchanged).
    private mutating func startsParameter() -> Bool {
        let start = index
        defer { index = start }
        guard token() != nil else { return false }
        skipWhitespace()
        return current == UInt8(ascii: "=")
    }

    /// `token BWS "=" BWS ( token / quoted-string )`, or nil (and the index unchanged).
    private mutating func parameter() -> AuthenticationChallenge.Parameter? {
        let start = index
        guard let name = token() else { return nil }
        skipWhitespace()
        guard current == UInt8(ascii: "=") else {
            index = start
            return nil
        }
        index += 1
        skipWhitespace()
        if current == UInt8(ascii: "\"") {
            guard let value = quotedString() else {
                index = start
                return nil
            }
            return .init(name: name.lowercased(), value: value)
        }
        guard let value = token() else {
            index = start
            return nil
        }
        return .init(name: name.lowercased(), value: value)
    }

    /// `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="` followed by the end of the
    /// element (whitespace, then a comma or the end), or nil (and the index unchanged).
    private mutating func token68() -> String? {
        let start = index
        while let byte = current, Self.isToken68Byte(byte) { index += 1 }
        guard index > start else { return nil }
        while current == UInt8(ascii: "=") { index += 1 }
        let end = index
        skipWhitespace()
        guard atEnd || current == UInt8(ascii: ",") else {
            index = start
            return nil
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// `1*tchar`, or nil.
    private mutating func token() -> String? {
        let start = index
        while let byte = current, Self.isTokenByte(byte) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A quoted string at the index, unescaped; nil when it is not terminated (the parse stops).
    private mutating func quotedString() -> String? {
        var value: [UInt8] = []
        var cursor = index + 1
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte == UInt8(ascii: "\"") {
                index = cursor + 1
                return String(decoding: value, as: UTF8.self)
            }
            if byte == UInt8(ascii: "\\"), cursor + 1 < bytes.count {
                value.append(bytes[cursor + 1])
                cursor += 2
            } else {
                value.append(byte)
                cursor += 1
            }
        }
        broken = true
        index = bytes.count
        return nil
    }

    /// Skips to the next comma outside a quoted string (or the end).
    private mutating func skipElement() {
        var quoted = false
        while let byte = current {
            if quoted, byte == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if byte == UInt8(ascii: "\"") { quoted.toggle() }
            if byte == UInt8(ascii: ","), !quoted { return }
            index += 1
        }
        index = bytes.count
    }

    /// Skips spaces, tabs and commas (empty list elements).
    private mutating func skipSeparators() {
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: ",") { index += 1 }
    }

    /// Skips spaces and tabs; returns how many.
    @discardableResult
    private mutating func skipWhitespace() -> Int {
        let start = index
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
        return index - start
    }

    /// RFC 9110 §5.6.2 `tchar`.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    /// The characters of a `token68` before its trailing `=`.
    static func isToken68Byte(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "-._~+/".utf8.contains(byte)
    }

    /// ASCII letters and digits.
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
