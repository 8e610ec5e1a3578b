/// An incremental UTF-8 validator (RFC 3629, as RFC 6455 §8.1 requires for text): fed a
/// message's bytes in any slices — fragment or inflate-output boundaries may split a code
/// point — it fails on the first byte that cannot start or continue a valid sequence (overlongs,
/// surrogates and code points above U+10FFFF included), so a bad text message is refused before
/// the rest of it arrives.
struct WebSocketUTF8Validator: Sendable, Hashable {
    private var needed = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    /// Feeds more bytes; `false` as soon as they cannot be valid UTF-8 whatever follows.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            index += 1
            if needed == 0 {
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE, 0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return false
                }
            } else {
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    /// Feeds an array of bytes; see ``feed(_:)-(UnsafeRawBufferPointer)``.
    mutating func feed(_ bytes: some Collection<UInt8>) -> Bool {
        let array = Array(bytes)
        return array.withUnsafeBytes { feed($0) }
    }

    /// Whether the bytes fed so far end on a code point boundary (a complete text).
    var isComplete: Bool { needed == 0 }

    /// Whether `bytes` are a complete, valid UTF-8 text.
    static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var validator = WebSocketUTF8Validator()
        return validator.feed(bytes) && validator.isComplete
    }
}
