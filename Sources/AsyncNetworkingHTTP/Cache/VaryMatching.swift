import Foundation

/// `Vary` (RFC 9111 §4.1): a stored response is used only for a request whose values of the
/// fields its `Vary` names match those of the request that stored it. Pure.
///
/// The request's values are kept as fingerprints — the SHA-256 of the normalized value — so a
/// varying `Authorization` or `Cookie` never reaches the disk in clear.
enum VaryMatching {
    /// The fingerprint recorded for a field the request did not send.
    static let absent = ""

    /// The lower-cased field names the response varies on; `nil` for `Vary: *` (matches nothing).
    static func fields(of response: HeaderFields) -> [String]? {
        let names = response.tokens("Vary")
        return names.contains("*") ? nil : names
    }

    /// The fingerprints of `request`'s values for `fields`.
    static func fingerprints(of request: HeaderFields, fields: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for field in fields { result[field] = fingerprint(request[field]) }
        return result
    }

    /// Whether `request` selects a response stored with `stored` fingerprints.
    static func matches(_ stored: [String: String], request: HeaderFields) -> Bool {
        stored.allSatisfy { field, value in fingerprint(request[field]) == value }
    }

    /// The fingerprint of one value: list members trimmed and joined with `,` (so `a, b` and
    /// `a,b` match), then hashed; ``absent`` for no value.
    static func fingerprint(_ value: String?) -> String {
        guard let value else { return absent }
        let normalized = value.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .joined(separator: ",")
        return SHA256.digest(Data(normalized.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
