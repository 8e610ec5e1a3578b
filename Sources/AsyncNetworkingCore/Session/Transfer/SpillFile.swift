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
///
/// Disk use follows the backlog, not the total spilled: drained ranges are released with
/// ``release(from:to:)`` (a punched hole), and the owner rewinds to offset 0 with ``truncate()``
/// once everything written has been read (``EventChannel`` does both).
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

    /// Frees the disk blocks of `start..<end` (already read, never read again) without changing the
    /// file's size: `fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)` on Linux. Best effort: a
    /// file system that cannot punch holes keeps the blocks until ``truncate()``.
    func release(from start: Int64, to end: Int64) {
        guard end > start else { return }
        guard let fallocate = linuxFallocate else { return }
        // FALLOC_FL_KEEP_SIZE (0x01) | FALLOC_FL_PUNCH_HOLE (0x02), from <linux/falloc.h>.
        let punchHoleKeepSize: Int32 = 0x01 | 0x02
        while fallocate(descriptor, punchHoleKeepSize, start, end - start) != 0 && errno == EINTR {}
    }

    /// Cuts the file to zero bytes, freeing all its blocks (when nothing written is still unread).
    func truncate() {
        while ftruncate(descriptor, 0) != 0 && errno == EINTR {}
    }

    /// The bytes the file occupies on disk (`st_blocks` × 512), for tests and diagnostics.
    var allocatedBytes: Int64 {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return 0 }
        return Int64(info.st_blocks) * 512
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

/// glibc's `fallocate64(2)` wrapper, looked up at run time: the Glibc module does not import it
/// (it is declared only under `_GNU_SOURCE`). `nil` where there is none (other platforms).
private let linuxFallocate: (@convention(c) (Int32, Int32, Int64, Int64) -> Int32)? = {
    #if os(Linux)
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate64") ?? dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else {
        return nil
    }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, Int64, Int64) -> Int32).self)
    #else
    return nil
    #endif
}()
