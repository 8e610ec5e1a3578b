import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a resumable download needs to continue after a cancel, a dropped connection or a process
/// restart, kept as small JSON next to its partial file (`<partial>.json`).
///
/// The partial file's size is the number of bytes already on disk; this record says which
/// representation they belong to, so the next request can ask for the rest with
/// `Range: bytes=<size>-` and `If-Range: <validator>`.
struct DownloadRecord: Codable, Equatable {
    /// The format version; records of another version are ignored.
    var version = 1
    /// The absolute URL of the request the bytes came from.
    var url: String
    /// The `If-Range` value: a strong `ETag`, else `Last-Modified` when there was no `ETag` at all
    /// (``ResumeValidators``).
    var validator: String
    /// The length of the whole representation, when known.
    var totalLength: Int64?
    /// The `ETag` the bytes came with, strong or weak (absent from records of earlier releases).
    var etag: String? = nil
    /// The `Last-Modified` the bytes came with (absent from records of earlier releases).
    var lastModified: String? = nil

    /// The record at `url`, or `nil` when there is none or it cannot be read.
    static func load(from url: URL) -> DownloadRecord? {
        guard let data = try? Data(contentsOf: url),
              let record = try? JSONDecoder().decode(DownloadRecord.self, from: data),
              record.version == 1
        else { return nil }
        return record
    }

    /// Writes the record atomically (a temporary file renamed into place).
    func save(to url: URL) throws(NetworkingError) {
        do {
            let data = try JSONEncoder().encode(self)
            try data.write(to: url, options: .atomic)
        } catch {
            throw NetworkingError(
                .fileWriteFailed, "could not write the resume record \(url.path)", underlyingError: error, fileURL: url
            )
        }
    }
}

/// Reading the headers that make a download resumable.
enum ResumeHeaders {
    /// Whether the body arrives as stored (no `Content-Encoding`): only then do byte offsets in the
    /// file match offsets in the representation.
    static func isIdentityEncoded(_ response: HTTPURLResponse) -> Bool {
        let encoding = (response.value(forHTTPHeaderField: "Content-Encoding") ?? "").trimmingCharacters(in: .whitespaces)
        return encoding.isEmpty || encoding.lowercased() == "identity"
    }

    /// `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`), or `nil` when absent or malformed.
    static func contentRange(of response: HTTPURLResponse) -> (start: Int64, end: Int64, total: Int64?)? {
        guard let value = response.value(forHTTPHeaderField: "Content-Range")?.trimmingCharacters(in: .whitespaces),
              value.lowercased().hasPrefix("bytes ")
        else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        // RFC 9110 §14.4: `first-pos "-" last-pos "/" ( complete-length / "*" )`, each 1*DIGIT
        // (no sign, no empty bound) that fits an Int64; anything else is not a range.
        let halves = spec.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = digits(bounds[0]), let end = digits(bounds[1]), end >= start else {
            return nil
        }
        let total = halves[1] == "*" ? nil : digits(halves[1])
        if halves[1] != "*" && (total == nil || total! <= end) { return nil }
        return (start, end, total)
    }

    /// `1*DIGIT` as an Int64, or `nil` (a sign, a space, nothing, or more than Int64 holds).
    private static func digits(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int64(text)
    }
}
