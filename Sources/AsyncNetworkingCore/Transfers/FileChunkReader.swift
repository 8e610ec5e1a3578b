import Foundation

/// Sequential reads of a local file straight into a caller's buffer (no `Data` per piece), for
/// multipart file parts and spooling. Closed on deinit.
final class FileChunkReader {
    let url: URL
    private var descriptor: Int32

    /// - Throws: ``NetworkingError/Kind/fileReadFailed`` when the file cannot be opened.
    init(url: URL) throws(NetworkingError) {
        self.url = url
        descriptor = url.withUnsafeFileSystemRepresentation { path in path.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1 }
        guard descriptor >= 0 else {
            throw NetworkingError(.fileReadFailed, "could not open \(url.path): \(TransferFiles.errnoDescription())", fileURL: url)
        }
    }

    deinit {
        if descriptor >= 0 { _ = close(descriptor) }
    }

    /// Reads up to `buffer.count` bytes; 0 at the end of the file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(NetworkingError) -> Int {
        guard buffer.count > 0, let base = buffer.baseAddress else { return 0 }
        while true {
            let count = Foundation.read(descriptor, base, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw NetworkingError(.fileReadFailed, "could not read \(url.path): \(TransferFiles.errnoDescription())", fileURL: url)
        }
    }
}
