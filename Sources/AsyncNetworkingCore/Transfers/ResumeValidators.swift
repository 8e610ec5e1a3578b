import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The validators of the representation a partial download's bytes came from, and the two rules
/// that keep a resume from splicing two versions (RFC 9110 §13.1.5, §14.4, §8.8.3.2):
///
/// 1. `If-Range` carries a **strong** `ETag`, or `Last-Modified` only when the response had **no
///    `ETag` at all** (and the date is a strong validator: at least a second before `Date`). A weak
///    `ETag` — alone or beside a date — gives no `If-Range`: the download is not resumable and
///    restarts from byte 0.
/// 2. A 206 is appended only when every validator it carries matches these (strong comparison for
///    entity tags, the same `Last-Modified`), it carries the one `If-Range` used, and its
///    `Content-Range` states the same complete length. Anything else restarts from byte 0.
struct ResumeValidators: Equatable, Sendable {
    /// The `ETag` as received (strong or weak), trimmed.
    var etag: String?
    /// The `Last-Modified` value as received, trimmed.
    var lastModified: String?
    /// The `If-Range` value (rule 1), or `nil` when these bytes cannot be resumed.
    var ifRange: String?
    /// A record of an earlier release validated by a strong `ETag` did not keep `Last-Modified`:
    /// a 206's date is then not compared (the matching strong tag identifies the bytes).
    var lastModifiedUnknown = false

    /// The validators of a response (`Date` decides whether a lone `Last-Modified` is strong).
    init(of response: HTTPURLResponse) {
        self.init(
            etag: Self.field("ETag", of: response), lastModified: Self.field("Last-Modified", of: response),
            date: Self.field("Date", of: response)
        )
    }

    /// The validators from header values; `date` is the response's `Date`, if any.
    init(etag: String?, lastModified: String?, date: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
        if let etag {
            ifRange = Self.isStrong(etag) ? etag : nil
        } else if let lastModified, Self.isStrongDate(lastModified, date: date) {
            ifRange = lastModified
        } else {
            ifRange = nil
        }
    }

    /// Validators read back from a resume record. A record of an older format holds only the
    /// `If-Range` value: it stands for the validator of its kind, and any other validator a 206
    /// carries then fails to match (a restart, never a splice).
    init(record: DownloadRecord) {
        let ifRange = record.validator
        let isETag = ifRange.hasPrefix("\"")
        etag = record.etag ?? (isETag ? ifRange : nil)
        lastModified = record.lastModified ?? (isETag ? nil : ifRange)
        self.ifRange = ifRange.isEmpty || ifRange.hasPrefix("W/") ? nil : ifRange
        lastModifiedUnknown = record.etag == nil && record.lastModified == nil && isETag
    }

    /// Rule 2 for a 206's validators (the caller checks its `Content-Range`).
    func continue206(_ response: HTTPURLResponse) -> Bool {
        guard let ifRange else { return false }
        let etag206 = Self.field("ETag", of: response)
        let modified206 = Self.field("Last-Modified", of: response)
        if let etag206 {
            guard let etag, Self.isStrong(etag), Self.isStrong(etag206), etag206 == etag else { return false }
        } else if ifRange == etag {
            return false // the 206 must carry the entity tag it was asked to match
        }
        if let modified206, !lastModifiedUnknown {
            guard modified206 == lastModified else { return false }
        } else if modified206 != nil {
            // An earlier release's record: the strong tag matched above.
        } else if ifRange == lastModified && etag == nil {
            return false // the date it was asked to match
        }
        return true
    }

    /// Rule 2 for a 206's complete length: it must be stated and equal the known one (`nil`
    /// `known`: any stated length is accepted).
    static func sameCompleteLength(_ stated: Int64?, known: Int64?) -> Bool {
        guard let known else { return true }
        return stated == known
    }

    /// An entity tag without the `W/` prefix.
    static func isStrong(_ etag: String) -> Bool {
        etag.hasPrefix("\"") && etag.count >= 2 && etag.hasSuffix("\"")
    }

    /// RFC 9110 §8.8.2.2: a `Last-Modified` is strong when it is at least one second before the
    /// response's `Date`; without a `Date` (or an unreadable one) it is taken as strong, as
    /// browsers and curl do. An unreadable `Last-Modified` is never used.
    static func isStrongDate(_ lastModified: String, date: String?) -> Bool {
        guard let modified = HTTPDateParser.parse(lastModified) else { return false }
        guard let date, let sent = HTTPDateParser.parse(date) else { return true }
        return sent.timeIntervalSince(modified) >= 1
    }

    private static func field(_ name: String, of response: HTTPURLResponse) -> String? {
        guard let value = response.value(forHTTPHeaderField: name)?.trimmingCharacters(in: .whitespaces), !value.isEmpty else {
            return nil
        }
        return value
    }
}
