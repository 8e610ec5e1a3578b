import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file a persisting ``CookieJar`` reads and writes: JSON, `{"version":1,"cookies":[…]}`,
/// written atomically with mode 0600 (it holds session secrets).
enum CookieJarFile {
    struct Contents: Codable {
        var version: Int
        var cookies: [StoredCookie]
    }

    /// Why a jar file was refused.
    struct FormatError: Error, CustomStringConvertible {
        let path: String
        /// A record that no `Set-Cookie` could have produced (``StoredCookie/invalidity``), if that was why.
        var invalidCookie: String?
        var description: String {
            if let invalidCookie { return "\(path) holds a cookie a jar cannot hold: \(invalidCookie)" }
            return "\(path) is not a cookie jar file of a known version"
        }
    }

    /// The cookies in the file; none when it does not exist. Every record must be one a
    /// `Set-Cookie` could have produced (``StoredCookie/invalidity``): a file edited to hold a
    /// value with `\r\n` is refused whole, as a file of an unknown format is.
    static func load(from url: URL) throws -> [StoredCookie] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        let data = try Data(contentsOf: url)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let contents = try? decoder.decode(Contents.self, from: data), contents.version == 1 else {
            throw FormatError(path: url.path)
        }
        if let invalidity = contents.cookies.lazy.compactMap(\.invalidity).first {
            throw FormatError(path: url.path, invalidCookie: invalidity)
        }
        return contents.cookies
    }

    /// Writes `cookies` to a temporary file next to `url` (created with mode 0600), flushes it and
    /// renames it over `url`.
    static func write(_ cookies: [StoredCookie], to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(Contents(version: 1, cookies: cookies.sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }))
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString.prefix(8)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw posixError(temporary) }
        var failed = false
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    return
                }
                offset += written
            }
        }
        let error = failed ? posixError(temporary) : nil
        if !failed, fsync(descriptor) != 0 { failed = true }
        close(descriptor)
        if failed || rename(temporary.path, url.path) != 0 {
            let thrown = error ?? posixError(url)
            unlink(temporary.path)
            throw thrown
        }
    }

    private static func posixError(_ url: URL) -> any Error {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSFilePathErrorKey: url.path])
    }
}

/// `write(2)` (at file scope, where the name is the C function's).
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
