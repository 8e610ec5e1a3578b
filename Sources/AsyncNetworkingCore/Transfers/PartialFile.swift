import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The file a download writes into before it is moved into place, open for positioned writes and
/// locked (`flock`) so two downloads — in this process or another — never write the same one.
///
/// Used only on the ``SessionManager``'s executor. Writes go straight to the kernel with `pwrite`
/// (no buffering in memory), so a download of any size uses a few kilobytes here.
final class PartialFile {
    let url: URL
    private var descriptor: Int32

    /// Opens (creating if needed) and locks the file at `url`.
    ///
    /// A new file is created with `O_EXCL`; an existing one is opened with `O_NOFOLLOW` and must be a
    /// regular file of this user with a single link: a symbolic link (or a hard link) planted at `url` is an
    /// error, never followed, so a download cannot be made to overwrite another file.
    ///
    /// - Throws: ``NetworkingError/Kind/fileWriteFailed`` when it cannot be opened or is not a plain
    ///   file, or ``NetworkingError/Kind/unsupportedOperation`` when another download holds it.
    init(url: URL, request: URLRequest?) throws(NetworkingError) {
        self.url = url
        let (descriptor, code) = url.withUnsafeFileSystemRepresentation { path -> (Int32, Int32) in
            guard let path else { return (-1, ENOENT) }
            let created = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if created >= 0 || errno != EEXIST { return (created, errno) }
            let existing = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            return (existing, errno)
        }
        guard descriptor >= 0 else {
            throw NetworkingError(
                .fileWriteFailed,
                code == ELOOP ? "\(url.path) is a symbolic link; a partial file is never written through one"
                    : "could not open \(url.path): \(TransferFiles.errnoDescription(code))",
                request: request, fileURL: url
            )
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1,
              info.st_uid == getuid() else {
            posixClose(descriptor)
            throw NetworkingError(
                .fileWriteFailed, "\(url.path) is not a plain file of this user (a link, a device, a directory or another user's file); it is left alone",
                request: request, fileURL: url
            )
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            posixClose(descriptor)
            throw NetworkingError(
                code == EWOULDBLOCK ? .unsupportedOperation : .fileWriteFailed,
                code == EWOULDBLOCK ? "another download is already writing \(url.path)"
                    : "could not lock \(url.path): \(TransferFiles.errnoDescription(code))",
                request: request, fileURL: url
            )
        }
        self.descriptor = descriptor
    }

    deinit { close() }

    /// Whether the file is still open.
    var isOpen: Bool { descriptor >= 0 }

    /// The file's current size in bytes.
    var size: Int64 {
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0 else { return 0 }
        return Int64(info.st_size)
    }

    /// Writes all of `data` at `offset`.
    func write(_ data: Data, at offset: Int64) throws(NetworkingError) {
        let result: Result<Void, NetworkingError> = data.withUnsafeBytes { buffer in
            Result { () throws(NetworkingError) in try write(buffer, at: offset) }
        }
        try result.get()
    }

    /// Writes all of `buffer` at `offset`.
    func write(_ buffer: UnsafeRawBufferPointer, at offset: Int64) throws(NetworkingError) {
        var written = 0
        while written < buffer.count {
            let result = pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset) + off_t(written))
            if result < 0 {
                if errno == EINTR { continue }
                throw NetworkingError(
                    .fileWriteFailed, "could not write to \(url.path): \(TransferFiles.errnoDescription())", fileURL: url
                )
            }
            written += result
        }
    }

    /// Cuts the file to `length` bytes.
    func truncate(to length: Int64) throws(NetworkingError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else {
            throw NetworkingError(
                .fileWriteFailed, "could not truncate \(url.path): \(TransferFiles.errnoDescription())", fileURL: url
            )
        }
    }

    /// Closes the file, releasing the lock. Idempotent.
    func close() {
        guard descriptor >= 0 else { return }
        posixClose(descriptor)
        descriptor = -1
    }

    /// Deletes the file and closes it.
    func remove() {
        TransferFiles.remove(url)
        close()
    }
}

/// `close(2)`, named apart from ``PartialFile/close()``.
private func posixClose(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #elseif canImport(Musl)
    _ = Musl.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}
