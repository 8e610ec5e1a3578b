/// The one rule every request header field passes before any transport writes it (RFC 9110
/// §5.1, §5.5): the name is a token, and the value holds no control character other than HTAB —
/// so no CR, LF or NUL can start a field or a request of its own (header injection). The same
/// bytes are refused in a response head (``ResponseHeadValidation``).
///
/// It is applied where the request is final, whatever set its fields (the caller, the
/// configuration's headers, the cookie jar, adapters, hooks, a credential): by the Session layer
/// on the request each attempt sends, on every transport (and on a redirect URLSession follows in
/// its own task), on every field of a WebSocket's opening handshake, and by the curl transport
/// once more on what it is handed. The text it returns names the rule and the field, never the
/// value (it may hold a secret).
package enum HeaderFieldValidation {
    /// Why the field `name: value` may not be sent, or `nil` when it may.
    package static func problem(name: String, value: String) -> String? {
        guard !name.isEmpty, name.utf8.allSatisfy(ResponseHeadValidation.isTokenByte) else {
            return "the header name \(name.debugDescription) is not an HTTP token"
        }
        guard value.utf8.allSatisfy(ResponseHeadValidation.isFieldValueByte) else {
            return "the value of header \(name) holds a control character (CR, LF, NUL or another)"
        }
        return nil
    }

    /// The first problem among `fields`, or `nil`.
    package static func problem(in fields: some Sequence<(name: String, value: String)>) -> String? {
        for field in fields {
            if let problem = problem(name: field.name, value: field.value) { return problem }
        }
        return nil
    }
}
