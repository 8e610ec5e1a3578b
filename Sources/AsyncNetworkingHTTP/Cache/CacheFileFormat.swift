import Foundation

/// The bytes of one disk entry, and back. Pure.
///
/// Layout (integers big-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 4 | magic `ANHC` |
/// | 4 | 2 | format version (1) |
/// | 6 | 2 | reserved, 0 |
/// | 8 | 4 | head length H |
/// | 12 | 8 | body length B |
/// | 20 | 8 | FNV-1a 64 checksum of the head and body bytes |
/// | 28 | H | the head, JSON (``StoredResponse/Head``) |
/// | 28 + H | B | the body |
///
/// Decoding refuses anything that does not check out — wrong magic or version, lengths that do
/// not add up to the file's size, a checksum mismatch, a head that does not decode, a key other
/// than the one asked for — and the cache reads a refusal as a miss.
enum CacheFileFormat {
    static let magic: [UInt8] = Array("ANHC".utf8)
    static let version: UInt16 = 1
    static let headerSize = 28

    /// The bytes of `entry`.
    static func encode(_ entry: StoredResponse) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let head = try? encoder.encode(entry.head), head.count <= Int(UInt32.max) else { return nil }
        var checksum = CacheChecksum()
        checksum.update(head)
        checksum.update(entry.body)
        var data = Data(capacity: headerSize + head.count + entry.body.count)
        data.append(contentsOf: magic)
        append(&data, UInt64(version), bytes: 2)
        append(&data, 0, bytes: 2)
        append(&data, UInt64(head.count), bytes: 4)
        append(&data, UInt64(entry.body.count), bytes: 8)
        append(&data, checksum.value, bytes: 8)
        data.append(head)
        data.append(entry.body)
        return data
    }

    /// The entry in `data`, if it is intact and stored under `key`.
    static func decode(_ data: Data, key: String) -> StoredResponse? {
        guard data.count >= headerSize, Array(data.prefix(4)) == magic,
              read(data, at: 4, bytes: 2) == UInt64(version), read(data, at: 6, bytes: 2) == 0
        else { return nil }
        let headLength = read(data, at: 8, bytes: 4)
        let bodyLength = read(data, at: 12, bytes: 8)
        guard bodyLength <= UInt64(Int.max) - headLength - UInt64(headerSize),
              UInt64(data.count) == UInt64(headerSize) + headLength + bodyLength
        else { return nil }
        let headStart = data.startIndex + headerSize
        let head = data[headStart ..< headStart + Int(headLength)]
        let body = data[(headStart + Int(headLength))...]
        var checksum = CacheChecksum()
        checksum.update(head)
        checksum.update(body)
        guard checksum.value == read(data, at: 20, bytes: 8),
              let decoded = try? JSONDecoder().decode(StoredResponse.Head.self, from: head),
              decoded.key == key
        else { return nil }
        return StoredResponse(head: decoded, body: Data(body))
    }

    private static func append(_ data: inout Data, _ value: UInt64, bytes: Int) {
        for index in (0..<bytes).reversed() { data.append(UInt8(truncatingIfNeeded: value >> UInt64(index * 8))) }
    }

    private static func read(_ data: Data, at offset: Int, bytes: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<bytes { value = value << 8 | UInt64(data[data.startIndex + offset + index]) }
        return value
    }
}

/// The 64-bit FNV-1a hash, fed in pieces: it detects torn and corrupted files, not tampering.
struct CacheChecksum {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func update(_ data: some DataProtocol) {
        var hash = value
        for region in data.regions {
            region.withUnsafeBytes { raw in
                for byte in raw { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            }
        }
        value = hash
    }
}
