/// A frame's opcode (RFC 6455 §5.2). Values 3–7 and 11–15 are reserved: a frame carrying one
/// fails the connection with 1002.
enum WebSocketOpcode: UInt8, Sendable, Hashable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Close, ping and pong (opcodes with the high bit set).
    var isControl: Bool { rawValue & 0x8 != 0 }
}

/// One WebSocket frame, unmasked (RFC 6455 §5.2).
struct WebSocketFrame: Sendable, Hashable {
    var fin: Bool
    /// RSV1: set on the first frame of a compressed message when permessage-deflate is on.
    var rsv1: Bool = false
    var opcode: WebSocketOpcode
    var payload: [UInt8]

    init(fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payload: [UInt8] = []) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payload = payload
    }
}

/// Encodes client frames: every frame masked (RFC 6455 §5.3) with a fresh key drawn from the
/// system's random generator, as a client must.
enum WebSocketFrameEncoder {
    /// The wire bytes of `frame`, masked with `maskKey` (a fresh random key when `nil`).
    static func encode(_ frame: WebSocketFrame, maskKey: [UInt8]? = nil) -> [UInt8] {
        let key = maskKey ?? freshMaskKey()
        precondition(key.count == 4, "a masking key is 4 bytes")
        let length = frame.payload.count
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length + 14)
        bytes.append((frame.fin ? 0x80 : 0) | (frame.rsv1 ? 0x40 : 0) | frame.opcode.rawValue)
        if length < 126 {
            bytes.append(0x80 | UInt8(length))
        } else if length <= 0xFFFF {
            bytes.append(0x80 | 126)
            bytes.append(UInt8(length >> 8))
            bytes.append(UInt8(length & 0xFF))
        } else {
            bytes.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
        }
        bytes += key
        let start = bytes.count
        bytes += frame.payload
        bytes.withUnsafeMutableBufferPointer { buffer in
            mask(UnsafeMutableBufferPointer(rebasing: buffer[start...]), key: key, offset: 0)
        }
        return bytes
    }

    /// A new random 4-byte masking key.
    static func freshMaskKey() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt32
        return [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)]
    }

    /// XORs `buffer` with `key`, `offset` being the index of its first byte in the payload. Eight
    /// bytes at a time (the key repeats every 4, so an 8-byte pattern fits every 8-byte step),
    /// then the tail byte by byte.
    static func mask(_ buffer: UnsafeMutableBufferPointer<UInt8>, key: [UInt8], offset: Int) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { bytes in
            for index in 0..<8 { bytes[index] = key[(index + offset) & 3] }
        }
        let raw = UnsafeMutableRawPointer(base)
        var index = 0
        while index + 8 <= buffer.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            raw.storeBytes(of: word ^ pattern, toByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < buffer.count {
            buffer[index] ^= key[(index + offset) & 3]
            index += 1
        }
    }
}
