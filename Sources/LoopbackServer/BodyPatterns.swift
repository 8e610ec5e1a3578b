import Foundation

/// The default body of `/bytes/N`, `/stream/N`, `/drip` and `/drop`: byte `i` is `UInt8(i % 251)`.
///
/// 251 is prime, so a body shifted by any offset that is not a multiple of 251 differs
/// from the original — a misplaced Range or a resumed download that restarts at the wrong
/// offset shows up as a checksum mismatch.
public enum BytePattern {
    /// The length of the repeating cycle.
    public static let period = 251

    /// The byte at absolute offset `offset` (which must not be negative) of a patterned body.
    public static func byte(at offset: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: offset % period)
    }

    /// `count` bytes of the patterned body starting at absolute offset `offset`.
    public static func data(offset: Int, count: Int) -> Data {
        precondition(offset >= 0 && count >= 0, "offset and count must not be negative")
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            var value = offset % period
            for index in 0..<count {
                buffer[index] = UInt8(truncatingIfNeeded: value)
                value += 1
                if value == period { value = 0 }
            }
        }
        return data
    }

    /// Bytes of the pattern from offset 0, long enough that any `writeChunk` bytes starting
    /// at any phase `offset % period` are one contiguous slice: the server sends big patterned
    /// bodies straight from this shared, immutable buffer without copying.
    static let sharedBuffer: [UInt8] = (0..<(writeChunk + period)).map { UInt8(truncatingIfNeeded: $0 % period) }

    /// The largest piece the server hands to `send` at once for generated bodies.
    static let writeChunk = 256 * 1024
}

/// The body of `/bytes/N?seed=S` and `/versioned/N`: deterministic pseudo-random bytes.
///
/// Byte `i` is a pure function of `(seed, i)`: it is byte `i % 8` (little-endian, so
/// bits `8 * (i % 8) ..< 8 * (i % 8) + 8`) of ``word(seed:index:)`` for `index = i / 8`.
/// Any slice can be recomputed independently, so Range answers stay consistent.
public enum SeededBytes {
    /// SplitMix64 applied to `seed + (index + 1) * 0x9E3779B97F4A7C15` (wrapping arithmetic).
    public static func word(seed: UInt64, index: UInt64) -> UInt64 {
        var z = seed &+ (index &+ 1) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The byte at absolute offset `offset` (not negative) of the body for `seed`.
    public static func byte(seed: UInt64, at offset: Int) -> UInt8 {
        let word = word(seed: seed, index: UInt64(offset / 8))
        return UInt8(truncatingIfNeeded: word >> (8 * UInt64(offset % 8)))
    }

    /// `count` bytes of the body for `seed` starting at absolute offset `offset`.
    public static func data(seed: UInt64, offset: Int, count: Int) -> Data {
        precondition(offset >= 0 && count >= 0, "offset and count must not be negative")
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in fill(buffer, seed: seed, offset: offset) }
        return data
    }

    /// Fills `buffer` with the body bytes for `seed` starting at absolute offset `offset`.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer, seed: UInt64, offset: Int) {
        let count = buffer.count
        guard count > 0, let base = buffer.baseAddress else { return }
        var position = 0
        // Leading bytes up to the next word boundary.
        while position < count && (offset + position) % 8 != 0 {
            base.storeBytes(of: byte(seed: seed, at: offset + position), toByteOffset: position, as: UInt8.self)
            position += 1
        }
        // Whole words.
        var index = UInt64((offset + position) / 8)
        while count - position >= 8 {
            base.storeBytes(of: word(seed: seed, index: index).littleEndian, toByteOffset: position, as: UInt64.self)
            index += 1
            position += 8
        }
        // Trailing bytes.
        while position < count {
            base.storeBytes(of: byte(seed: seed, at: offset + position), toByteOffset: position, as: UInt8.self)
            position += 1
        }
    }
}
