import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `multipart/form-data` body (RFC 7578), built part by part: AFNetworking's
/// `AFMultipartFormData` as a value type.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "author")
/// form.append(jsonData, name: "meta", filename: "meta.json")
/// try form.append(fileAt: videoURL, name: "video")          // video/mp4, read while sending
/// let (reply, response) = try await manager.upload(multipart: form, to: url)
/// ```
///
/// File parts are never read into memory by the builder: they are read from disk in chunks when
/// the body is encoded or sent (see ``MultipartEncoding``), so a 1 GiB file uploads in bounded
/// memory. A file part whose file is missing or unreadable is a
/// ``NetworkingError/Kind/fileReadFailed`` error when it is appended and again, before anything is
/// sent, if it disappeared meanwhile.
public struct MultipartFormData: Sendable {
    /// One part's content.
    package enum Content: Sendable {
        case data(Data)
        case file(URL)
        /// A stream of exactly `length` bytes, made anew each time the body is read.
        case stream(length: Int64, make: @Sendable () -> InputStream)
    }

    /// One part: its form field name, optional file name and type, and content.
    package struct Part: Sendable {
        var name: String
        var filename: String?
        var mimeType: String?
        var content: Content
        /// Headers written instead of the generated `Content-Disposition` and `Content-Type`
        /// (``MultipartFormData/append(_:headers:)``).
        var headers: HTTPHeaders? = nil

        package init(name: String, filename: String?, mimeType: String?, content: Content, headers: HTTPHeaders? = nil) {
            self.name = name
            self.filename = filename
            self.mimeType = mimeType
            self.content = content
            self.headers = headers
        }
    }

    /// The boundary between parts (without the leading `--`).
    public let boundary: String
    package var parts: [Part] = []

    /// Creates an empty form.
    ///
    /// - Parameter boundary: the delimiter; default ``randomBoundary()``. A custom one must be 1 to
    ///   70 characters that never occur in the content.
    public init(boundary: String = MultipartFormData.randomBoundary()) {
        self.boundary = boundary
    }

    /// A new random boundary (`AsyncNetworking.boundary.` and 32 hexadecimal digits).
    public static func randomBoundary() -> String {
        let random = (0..<2).map { _ in UInt64.random(in: .min ... .max) }
            .map { String($0, radix: 16) }
            .map { String(repeating: "0", count: 16 - $0.count) + $0 }
            .joined()
        return "AsyncNetworking.boundary.\(random)"
    }

    /// The request's `Content-Type`: `multipart/form-data; boundary=<boundary>`.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// How many parts the form has.
    public var count: Int { parts.count }

    /// Appends a text field (UTF-8, no `Content-Type`, as AFNetworking's `appendPartWithFormData`).
    public mutating func append(_ value: String, name: String) {
        parts.append(Part(name: name, filename: nil, mimeType: nil, content: .data(Data(value.utf8))))
    }

    /// Appends bytes from memory.
    ///
    /// - Parameters:
    ///   - filename: makes it a file part. Default `nil`.
    ///   - mimeType: the part's `Content-Type`. Default: inferred from `filename`'s extension when
    ///     there is a file name (else `application/octet-stream`), none otherwise.
    public mutating func append(_ data: Data, name: String, filename: String? = nil, mimeType: String? = nil) {
        let type = mimeType ?? filename.map(MIMEType.forFileName)
        parts.append(Part(name: name, filename: filename, mimeType: type, content: .data(data)))
    }

    /// Appends a file part whose bytes are read from disk while the body is encoded or sent.
    ///
    /// - Parameters:
    ///   - fileURL: a readable regular file.
    ///   - filename: default: the file's last path component.
    ///   - mimeType: default: inferred from the file name's extension (`application/octet-stream`
    ///     when unknown).
    /// - Throws: ``NetworkingError/Kind/fileReadFailed`` (its `fileURL` is `fileURL`) when the file
    ///   does not exist, is not a regular file, or cannot be read.
    public mutating func append(fileAt fileURL: URL, name: String, filename: String? = nil, mimeType: String? = nil) throws(NetworkingError) {
        try Self.checkReadable(fileURL)
        let filename = filename ?? fileURL.lastPathComponent
        let type = mimeType ?? MIMEType.forFileName(filename)
        parts.append(Part(name: name, filename: filename, mimeType: type, content: .file(fileURL)))
    }

    /// The MIME type multipart file parts get for a file extension (without the dot), for example
    /// `image/png` for `png`; `application/octet-stream` when unknown.
    public static func mimeType(forPathExtension pathExtension: String) -> String {
        MIMEType.forPathExtension(pathExtension)
    }

    // MARK: Layout

    /// One piece of the encoded body, in order.
    enum Segment {
        case bytes(Data)
        case file(URL)
        case stream(length: Int64, make: @Sendable () -> InputStream)
    }

    /// The encoded body as a sequence of in-memory bytes and files, adjacent bytes merged.
    var segments: [Segment] {
        var segments: [Segment] = []
        func add(_ data: Data) {
            if case .bytes(let previous)? = segments.last {
                segments[segments.count - 1] = .bytes(previous + data)
            } else {
                segments.append(.bytes(data))
            }
        }
        for (index, part) in parts.enumerated() {
            add(Data(header(for: part, first: index == 0).utf8))
            switch part.content {
            case .data(let data): add(data)
            case .file(let url): segments.append(.file(url))
            case .stream(let length, let make): segments.append(.stream(length: length, make: make))
            }
        }
        add(Data("\(parts.isEmpty ? "" : "\r\n")--\(boundary)--\r\n".utf8))
        return segments
    }

    private func header(for part: Part, first: Bool) -> String {
        if let headers = part.headers {
            let lines = headers.map { "\(Self.headerSafe($0.name)): \(Self.headerSafe($0.value))\r\n" }.joined()
            return "\(first ? "" : "\r\n")--\(boundary)\r\n" + lines + "\r\n"
        }
        var header = "\(first ? "" : "\r\n")--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escape(part.name))\""
        if let filename = part.filename { header += "; filename=\"\(Self.escape(filename))\"" }
        header += "\r\n"
        if let type = part.mimeType {
            header += "Content-Type: \(Self.headerSafe(type))\r\n"
        }
        return header + "\r\n"
    }

    /// A header name or value without control characters other than HTAB (RFC 9110 §5.5): no CR
    /// or LF, so a part's headers cannot end early, and no NUL, vertical tab, DEL or other C0
    /// control a recipient would refuse.
    static func headerSafe(_ text: String) -> String {
        var safe = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where scalar == "\t" || (scalar.value >= 0x20 && scalar.value != 0x7F) {
            safe.append(scalar)
        }
        return String(safe)
    }

    /// Field and file names as browsers encode them (WHATWG): `"` → `%22`, CR → `%0D`, LF → `%0A`.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": escaped += "%22"
            case "\r": escaped += "%0D"
            case "\n": escaped += "%0A"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    static func checkReadable(_ fileURL: URL) throws(NetworkingError) {
        var isDirectory: ObjCBool = false
        guard fileURL.isFileURL,
              FileManager.default.fileExists(atPath: fileURL.path, isDirectory: &isDirectory), !isDirectory.boolValue,
              FileManager.default.isReadableFile(atPath: fileURL.path)
        else {
            throw NetworkingError(.fileReadFailed, "no readable file at \(fileURL.path) for a multipart part", fileURL: fileURL)
        }
    }
}
