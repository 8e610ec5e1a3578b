import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An anonymous temporary file that holds stream data past the high-water mark.
///
/// The file is created with `mkstemp` and unlinked at once, so no name is left on disk on any path
/// (success, error, cancel, crash); the space is released when the descriptor closes in `deinit`.
/// Writes (by the producer) and reads (by the consumer) use `pwrite`/`pread` at disjoint offsets,
/// which are safe from two threads without a lock.
final class SpillFile: Sendable {
    private let descriptor: Int32

    /// Creates the file in `directory` (default: the system temporary directory).
    init(directory: URL = FileManager.default.temporaryDirectory) throws(NetworkingError) {
        var template = Array(directory.appendingPathComponent("AsyncNetworking-spill-XXXXXX").path.utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw NetworkingError(
                .fileWriteFailed, "could not create a spill file: \(String(cString: strerror(errno)))",
                fileURL: directory
            )
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Writes all of `data` at `offset`.
    func write(_ data: Data, at offset: Int64) throws(NetworkingError) {
        let failure: Int32? = data.withUnsafeBytes { raw -> Int32? in
            var done = 0
            while done < raw.count {
                let n = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += n
            }
            return nil
        }
        if let failure {
            throw NetworkingError(.fileWriteFailed, "writing the spill file failed: \(String(cString: strerror(failure)))")
        }
    }

    /// Reads exactly `length` bytes at `offset`.
    func read(at offset: Int64, length: Int) throws(NetworkingError) -> Data {
        var data = Data(count: length)
        let failure: Int32? = data.withUnsafeMutableBytes { raw -> Int32? in
            var done = 0
            while done < length {
                let n = pread(descriptor, raw.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return EIO }
                done += n
            }
            return nil
        }
        if let failure {
            throw NetworkingError(.fileReadFailed, "reading the spill file failed: \(String(cString: strerror(failure)))")
        }
        return data
    }
}
