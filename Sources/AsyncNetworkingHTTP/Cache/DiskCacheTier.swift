import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The disk tier: one file per stored response in a directory, at most `capacity` bytes of
/// files, least recently used evicted first. Owned by ``HTTPCache`` and used only on its executor
/// (a dispatch queue of its own, so these blocking calls never hold a Swift concurrency thread).
///
/// - File names are the hex SHA-256 of the key (``CacheKey/fileName(_:)``): no URL text on disk.
/// - Writes are atomic: a temporary file in the same directory, then `rename(2)` over the entry.
///   A crash leaves either the old entry, the new one, or a temporary file removed at the next
///   start — never a torn entry under the real name (and a torn file would fail its checksum).
/// - Reads open with `O_NOFOLLOW` and accept only regular files; the scan uses `lstat`; removal
///   is `unlink`, which never follows a link. Nothing outside the directory is read or removed,
///   and files in it that are not entries are left alone.
/// - An entry that cannot be read or does not check out (``CacheFileFormat``) is a miss, and its
///   file is removed.
/// - Recency survives restarts: a hit sets the file's modification time, and the scan at start
///   orders files by it.
final class DiskCacheTier {
    /// The directory.
    let directory: URL
    /// The byte limit on the sum of the files' sizes.
    let capacity: Int
    private var order = LRUIndex()
    private static let temporaryPrefix = ".tmp-"

    /// Opens (creating it, mode 0700, if needed) `directory` and indexes the entries found there;
    /// `nil` when the directory cannot be created or read.
    init?(directory: URL, capacity: Int) {
        self.directory = directory
        self.capacity = max(0, capacity)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            return nil
        }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return nil }
        var found: [(name: String, size: Int, modified: Int)] = []
        for name in names {
            var info = stat()
            guard lstat(path(name), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            if name.hasPrefix(Self.temporaryPrefix) {
                unlink(path(name))
            } else if Self.isEntryName(name) {
                found.append((name, Int(info.st_size), Self.modificationNanoseconds(info)))
            }
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) { order.insert(file.name, cost: file.size) }
        for evicted in order.evict(toFit: self.capacity) { unlink(path(evicted)) }
    }

    /// The bytes of the entries' files.
    var usage: Int { order.totalCost }

    /// The number of entries.
    var count: Int { order.count }

    /// The entry stored under `key`, if present and intact (a damaged one is removed).
    func get(_ key: String) -> StoredResponse? {
        let name = CacheKey.fileName(key)
        guard order.contains(name) else { return nil }
        guard let data = contents(of: name), let entry = CacheFileFormat.decode(data, key: key) else {
            remove(key)
            return nil
        }
        order.touch(name)
        utimensat(AT_FDCWD, path(name), nil, AT_SYMLINK_NOFOLLOW)
        return entry
    }

    /// Writes `entry` atomically, then evicts least recently used files until the tier fits. An
    /// entry larger than the capacity, or a failed write, leaves no entry under its key.
    func put(_ entry: StoredResponse) {
        let name = CacheKey.fileName(entry.head.key)
        guard let data = CacheFileFormat.encode(entry), data.count <= capacity, store(data, as: name) else {
            remove(entry.head.key)
            return
        }
        order.insert(name, cost: data.count)
        for evicted in order.evict(toFit: capacity, keeping: name) { unlink(path(evicted)) }
    }

    /// Removes the entry for `key`.
    func remove(_ key: String) {
        let name = CacheKey.fileName(key)
        order.remove(name)
        unlink(path(name))
    }

    /// Removes every entry's file (other files in the directory are left alone).
    func removeAll() {
        for name in order.keysOldestFirst { unlink(path(name)) }
        order.removeAll()
    }

    /// Whether `name` looks like an entry's file: 64 lower-case hex digits.
    static func isEntryName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    private static func modificationNanoseconds(_ info: stat) -> Int {
        #if canImport(Darwin)
        Int(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int(info.st_mtimespec.tv_nsec)
        #else
        Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
        #endif
    }

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// The whole file, if it is a regular file (not a link) and can be read.
    private func contents(of name: String) -> Data? {
        let fd = open(path(name), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        var data = Data(count: size)
        let complete = data.withUnsafeMutableBytes { raw -> Bool in
            var done = 0
            while done < size {
                let n = read(fd, raw.baseAddress! + done, size - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        return complete ? data : nil
    }

    /// Writes `data` to a new temporary file and renames it to `name`; `false` on any failure.
    private func store(_ data: Data, as name: String) -> Bool {
        let temporary = path(Self.temporaryPrefix + UUID().uuidString)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        let written = data.withUnsafeBytes { raw -> Bool in
            var done = 0
            while done < raw.count {
                let n = write(fd, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        guard close(fd) == 0, written, rename(temporary, path(name)) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
