import Foundation

/// Checksums the loopback server reports for request bodies.
///
/// Every body the server reads is hashed with 64-bit FNV-1a; the value appears in
/// ``RecordedRequest/bodyChecksum`` and as a decimal string in the JSON answers of
/// `/echo`, `/upload` and `/multipart`, so tests can compare it with ``fnv1a64(_:)``.
public enum Checksum {
    /// The 64-bit FNV-1a hash of a byte sequence.
    ///
    /// Contiguous sequences (`Data`, `[UInt8]`, buffer pointers) are hashed through
    /// their storage; other sequences byte by byte. The empty sequence hashes to
    /// ``FNV1a64/offsetBasis``.
    public static func fnv1a64(_ data: some Sequence<UInt8>) -> UInt64 {
        var hasher = FNV1a64()
        let done: Void? = data.withContiguousStorageIfAvailable { hasher.update(UnsafeRawBufferPointer($0)) }
        if done == nil {
            for byte in data { hasher.update(byte: byte) }
        }
        return hasher.value
    }
}

/// The incremental hasher, also reachable as `Checksum.FNV1a64`.
public typealias FNV1a64 = Checksum.FNV1a64

extension Checksum {
    /// An incremental 64-bit FNV-1a hasher (also available as the top-level `FNV1a64`).
    ///
    /// Feed bytes in any number of pieces; ``value`` is the hash of everything fed so far,
    /// the same as ``Checksum/fnv1a64(_:)`` of the concatenation.
    public struct FNV1a64: Sendable, Hashable {
        /// The FNV-1a 64-bit offset basis: the hash of no bytes.
        public static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
        /// The FNV 64-bit prime.
        public static let prime: UInt64 = 0x0000_0100_0000_01b3

        /// The hash of every byte fed so far.
        public private(set) var value: UInt64

        /// Creates a hasher that has seen no bytes (``value`` is ``offsetBasis``).
        public init() {
            value = Self.offsetBasis
        }

        /// Feeds the bytes of a raw buffer.
        public mutating func update(_ bytes: UnsafeRawBufferPointer) {
            var hash = value
            var index = 0
            let count = bytes.count
            while index < count {
                hash = (hash ^ UInt64(bytes[index])) &* Self.prime
                index += 1
            }
            value = hash
        }

        /// Feeds the bytes of `data`.
        public mutating func update(_ data: Data) {
            data.withUnsafeBytes { update($0) }
        }

        /// Feeds the bytes of an array.
        public mutating func update(_ bytes: [UInt8]) {
            bytes.withUnsafeBytes { update($0) }
        }

        /// Feeds a single byte.
        public mutating func update(byte: UInt8) {
            value = (value ^ UInt64(byte)) &* Self.prime
        }
    }
}
