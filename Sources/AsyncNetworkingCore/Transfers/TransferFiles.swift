import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Names and housekeeping of the files the Transfers layer creates.
///
/// Every temporary file AsyncNetworking makes in the temporary directory starts with
/// ``temporaryPrefix``, so leftovers (after a crash) are easy to find; on every normal path they
/// are deleted when their transfer ends.
package enum TransferFiles {
    /// The prefix of every file AsyncNetworking creates in the temporary directory.
    static let temporaryPrefix = "AsyncNetworking-"
    /// The suffix of a download's partial file; its resume record adds ``recordSuffix``.
    static let partialSuffix = ".partial"
    /// The suffix of a resumable download's record, after the partial file's name.
    static let recordSuffix = ".json"

    /// A new, unique file URL in `directory` (default: the temporary directory), not yet created.
    static func temporaryURL(_ kind: String, in directory: URL? = nil) -> URL {
        let directory = directory ?? FileManager.default.temporaryDirectory
        return directory.appendingPathComponent("\(temporaryPrefix)\(kind)-\(UUID().uuidString).tmp")
    }

    /// A short stable key for a URL (64-bit FNV-1a of its absolute string, in hex), used to name the
    /// partial file of a download whose final name is only known from its response.
    static func key(for url: URL) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.absoluteString.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Removes a file if it exists, ignoring errors (cleanup on paths that already failed).
    static func remove(_ url: URL) {
        _ = url.withUnsafeFileSystemRepresentation { path in path.map { unlink($0) } }
    }

    /// The size of a regular file, or `nil` when there is none.
    package static func size(of url: URL) -> Int64? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              (attributes[.type] as? FileAttributeType) == .typeRegular,
              let size = attributes[.size] as? NSNumber
        else { return nil }
        return size.int64Value
    }

    /// Whether something (a file, a directory, a link) exists at `url`, without following a final link.
    static func exists(_ url: URL) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: url.path)) != nil
    }

    /// Whether `url` is an existing directory.
    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Makes sure `directory` exists: creates it (and its parents) when `create`, else throws.
    static func prepareDirectory(_ directory: URL, create: Bool, request: URLRequest?) throws(NetworkingError) {
        if isDirectory(directory) { return }
        guard create, !exists(directory) else {
            throw NetworkingError(
                .fileWriteFailed,
                exists(directory) ? "\(directory.path) is not a directory"
                    : "the directory \(directory.path) does not exist (set createIntermediateDirectories to create it)",
                request: request, fileURL: directory
            )
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw NetworkingError(
                .fileWriteFailed, "could not create the directory \(directory.path)",
                request: request, underlyingError: error, fileURL: directory
            )
        }
    }

    /// The name of the per-user directory (`AsyncNetworking-<uid>`) that holds the partial files
    /// of ``DownloadDestination/custom(_:)`` downloads inside a temporary directory.
    static var privateDirectoryName: String { "\(temporaryPrefix)\(getuid())" }

    /// `parent/AsyncNetworking-<uid>`, created with mode 0700 when missing, and checked: it must be a
    /// real directory (not a symbolic link) owned by this user; a looser mode is tightened to 0700.
    ///
    /// Files with predictable names (a download's partial file, named after its URL) live here, never
    /// in a directory other users can write, so no one can plant a link at such a name.
    ///
    /// - Throws: ``NetworkingError/Kind/fileWriteFailed`` when it cannot be created, is a link or
    ///   not a directory, or belongs to someone else.
    static func privateDirectory(in parent: URL, request: URLRequest?) throws(NetworkingError) -> URL {
        let directory = parent.appendingPathComponent(privateDirectoryName, isDirectory: true)
        let failure: String? = directory.withUnsafeFileSystemRepresentation { path -> String? in
            guard let path else { return "the path cannot be represented" }
            if mkdir(path, 0o700) != 0 && errno != EEXIST { return errnoDescription() }
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else {
                return errno == ELOOP || errno == ENOTDIR ? "it is a symbolic link or not a directory" : errnoDescription()
            }
            defer { _ = close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return errnoDescription() }
            guard info.st_uid == getuid() else { return "it belongs to user \(info.st_uid), not \(getuid())" }
            if info.st_mode & 0o077 != 0 && fchmod(descriptor, 0o700) != 0 { return errnoDescription() }
            return nil
        }
        if let failure {
            throw NetworkingError(
                .fileWriteFailed, "cannot use \(directory.path) for partial files: \(failure)",
                request: request, fileURL: directory
            )
        }
        return directory
    }

    /// The text of the current `errno`.
    static func errnoDescription(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
