@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Masking eight bytes at a time gives exactly the byte-by-byte XOR of RFC 6455 §5.3, for every
/// length (the 8-byte steps and the tail) and every starting offset into the key.
@Suite("WebSocket masking")
struct WebSocketMaskTests {
    @Test func wordMaskingEqualsTheBytewiseDefinition() {
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        for length in 0...67 {
            for offset in 0..<4 {
                let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
                var masked = payload
                masked.withUnsafeMutableBufferPointer { WebSocketFrameEncoder.mask($0, key: key, offset: offset) }
                let expected = payload.enumerated().map { $0.element ^ key[($0.offset + offset) & 3] }
                #expect(masked == expected, "length \(length), offset \(offset)")
            }
        }
    }
}
