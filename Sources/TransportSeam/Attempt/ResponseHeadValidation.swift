import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The field rules of RFC 9110 §5.1 and §5.5 applied to a response as a transport hands it over,
/// so both transports refuse the same heads.
///
/// The curl transport checks every raw line as it arrives (``CurlHeadParser``: line ends, status
/// line, names and values). FoundationNetworking parses the head itself and keeps what libcurl lets
/// through — a value holding a vertical tab or a bare CR, for example — so the URLSession transport
/// checks the parsed fields here: a name must be a token, a value must hold no control character
/// other than HTAB. What FoundationNetworking already refused (a line without a colon, a NUL, a
/// name with a space) never reaches this point: it fails the task, reported as
/// ``NetworkingError/Kind/transport(_:)`` `.badServerResponse`.
package enum ResponseHeadValidation {
    /// Why `response`'s fields break the rules, or `nil` when they do not. The text names the rule,
    /// never a field's value (it may hold a secret).
    package static func problem(in response: HTTPURLResponse) -> String? {
        for (key, value) in response.allHeaderFields {
            guard let name = key.base as? String else { continue }
            if name.isEmpty || !name.utf8.allSatisfy(isTokenByte) {
                return "invalid response head: a header field name that is not a token"
            }
            if let text = value as? String, !text.utf8.allSatisfy(isFieldValueByte) {
                return "invalid response head: a control character in the value of \(name)"
            }
        }
        return nil
    }

    /// `tchar` of RFC 9110 §5.6.2.
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return tokenSymbols.contains(byte)
        }
    }

    /// VCHAR, obs-text, SP or HTAB (RFC 9110 §5.5): anything but the other C0 controls and DEL.
    package static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\t") || (byte >= 0x20 && byte != 0x7F)
    }

    private static let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
}
