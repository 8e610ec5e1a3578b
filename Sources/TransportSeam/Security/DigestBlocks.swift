/// The message schedule input SHA-1 and SHA-256 share (FIPS 180-4 §5.1.1, §5.2.1): padding to
/// 64-byte blocks and reading a block as sixteen big-endian words.
package enum DigestBlocks {
    /// `message` followed by `0x80`, zeros, and its length in bits as a big-endian 64-bit number,
    /// so its count is a multiple of 64.
    package static func padded(_ message: some Collection<UInt8>) -> [UInt8] {
        var bytes = Array(message)
        let bitLength = UInt64(bytes.count) &* 8
        bytes.append(0x80)
        while bytes.count % 64 != 56 { bytes.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        return bytes
    }

    /// Sets `words[0..<16]` to the big-endian words of the 64-byte block at `offset` in `bytes`.
    package static func load(_ bytes: [UInt8], blockAt offset: Int, into words: inout [UInt32]) {
        for i in 0..<16 {
            let base = offset + i * 4
            words[i] = UInt32(bytes[base]) << 24 | UInt32(bytes[base + 1]) << 16 | UInt32(bytes[base + 2]) << 8 | UInt32(bytes[base + 3])
        }
    }
}
