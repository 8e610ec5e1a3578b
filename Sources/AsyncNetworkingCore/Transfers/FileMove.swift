import Foundation

/// Moving a finished download into place: atomically, never replacing a file unless asked, and
/// always saying where the bytes are when it fails.
enum FileMove {
    /// What a move within one file system did.
    enum Outcome {
        /// The file is at its destination.
        case moved
        /// Source and destination are on different file systems: the bytes must be copied.
        case needsCopy
    }

    /// Renames `source` to `destination` (one atomic step). With `replacing` false an existing
    /// destination is never touched: the move fails instead (`link` + `unlink`, which cannot race).
    ///
    /// - Throws: ``NetworkingError/Kind/downloadMoveFailed`` with `fileURL` = `source`.
    static func move(_ source: URL, to destination: URL, replacing: Bool) throws(NetworkingError) -> Outcome {
        if replacing {
            if renameFile(source, destination) == 0 { return .moved }
            let code = errno
            if code == EXDEV { return .needsCopy }
            throw failure(source, destination, code)
        }
        if linkFile(source, destination) == 0 {
            TransferFiles.remove(source)
            return .moved
        }
        let code = errno
        switch code {
        case EXDEV:
            return .needsCopy
        case EEXIST:
            throw failure(source, destination, code, detail: "it already exists (set replaceExisting to replace it)")
        case EPERM, ENOTSUP, EOPNOTSUPP, EMLINK:
            // A file system without hard links: check, then rename (a narrow race, documented).
            guard !TransferFiles.exists(destination) else {
                throw failure(source, destination, EEXIST, detail: "it already exists (set replaceExisting to replace it)")
            }
            if renameFile(source, destination) == 0 { return .moved }
            throw failure(source, destination, errno)
        default:
            throw failure(source, destination, code)
        }
    }

    /// Copies `source` next to `destination` in chunks, moves the copy into place, then deletes
    /// `source`. Blocking: call it off the manager's executor.
    static func copyAcrossFileSystems(_ source: URL, to destination: URL, replacing: Bool) throws(NetworkingError) {
        let copy = TransferFiles.temporaryURL("copy", in: destination.deletingLastPathComponent())
        do {
            try FileManager.default.copyItem(at: source, to: copy)
        } catch {
            TransferFiles.remove(copy)
            throw NetworkingError(
                .downloadMoveFailed, "could not copy the download to \(destination.path); the bytes are in \(source.path)",
                underlyingError: error, fileURL: source
            )
        }
        do {
            _ = try move(copy, to: destination, replacing: replacing)
        } catch {
            TransferFiles.remove(copy)
            throw error
        }
        TransferFiles.remove(source)
    }

    private static func renameFile(_ source: URL, _ destination: URL) -> Int32 {
        withPaths(source, destination) { rename($0, $1) }
    }

    private static func linkFile(_ source: URL, _ destination: URL) -> Int32 {
        withPaths(source, destination) { link($0, $1) }
    }

    private static func withPaths(_ a: URL, _ b: URL, _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32) -> Int32 {
        a.withUnsafeFileSystemRepresentation { first in
            b.withUnsafeFileSystemRepresentation { second in
                guard let first, let second else { return -1 }
                return body(first, second)
            }
        }
    }

    private static func failure(_ source: URL, _ destination: URL, _ code: Int32, detail: String? = nil) -> NetworkingError {
        NetworkingError(
            .downloadMoveFailed,
            "could not move the download to \(destination.path): \(detail ?? TransferFiles.errnoDescription(code)); the bytes are in \(source.path)",
            underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO),
            fileURL: source
        )
    }
}
