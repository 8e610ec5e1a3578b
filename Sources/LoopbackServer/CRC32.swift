/// Table-driven CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), as used in gzip trailers.
struct CRC32: Sendable {
    /// The 256-entry lookup table for the reflected polynomial.
    static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 {
            crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1
        }
        return crc
    }

    /// The running register (pre- and post-conditioned with all ones).
    private var register: UInt32 = 0xFFFF_FFFF

    /// A CRC over no bytes.
    init() {}

    /// The CRC of every byte fed so far.
    var value: UInt32 { register ^ 0xFFFF_FFFF }

    /// Feeds `bytes`.
    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = register
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes {
                crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
            }
        }
        register = crc
    }

    /// Feeds `count` zero bytes in O(log count) time, without touching memory proportional to `count`.
    ///
    /// Feeding one zero byte is a linear map over GF(2) on the 32-bit register; feeding `n`
    /// of them is that map raised to the `n`th power, computed by repeated squaring (the same
    /// idea as zlib's `crc32_combine`).
    mutating func updateZeros(count: Int) {
        precondition(count >= 0)
        // Column j of a matrix is the image of the basis vector 1 << j.
        var power: [UInt32] = (0..<32).map { bit in
            let vector = UInt32(1) << UInt32(bit)
            return Self.table[Int(vector & 0xFF)] ^ (vector >> 8)
        }
        var remaining = count
        var vector = register
        while remaining > 0 {
            if remaining & 1 != 0 {
                vector = Self.apply(power, to: vector)
            }
            remaining >>= 1
            if remaining > 0 {
                power = power.map { Self.apply(power, to: $0) }
            }
        }
        register = vector
    }

    /// The CRC-32 of `count` zero bytes.
    static func ofZeros(count: Int) -> UInt32 {
        var crc = CRC32()
        crc.updateZeros(count: count)
        return crc.value
    }

    private static func apply(_ matrix: [UInt32], to vector: UInt32) -> UInt32 {
        var result: UInt32 = 0
        var bits = vector
        var column = 0
        while bits != 0 {
            if bits & 1 != 0 { result ^= matrix[column] }
            bits >>= 1
            column += 1
        }
        return result
    }
}
