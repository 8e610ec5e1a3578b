// Compiled into every fuzz target beside its entry file (Support/*.swift, see run.sh): reads the bytes
// libFuzzer hands over as the choices of one run (limits, chunk sizes, which coding) and the data.

/// The bytes of one fuzz input, read front to back. Reading past the end yields zeros / nothing,
/// so every input — the empty one included — is a valid run.
struct FuzzInput {
    let bytes: UnsafeRawBufferPointer
    private(set) var position = 0

    init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        bytes = UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size)
    }

    var isEmpty: Bool { position >= bytes.count }

    /// The next byte, or 0 at the end.
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// One of `choices`, picked by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(byte()) % choices.count] }

    /// The next `count` bytes (fewer at the end).
    mutating func take(_ count: Int) -> UnsafeRawBufferPointer {
        let end = min(bytes.count, position + max(0, count))
        defer { position = end }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<end])
    }

    /// Everything left.
    mutating func rest() -> UnsafeRawBufferPointer { take(bytes.count - position) }

    /// Everything left as `[UInt8]`.
    mutating func restArray() -> [UInt8] { Array(rest()) }

    /// Everything left as text (invalid UTF-8 repaired, as a header value from Latin-1 would not be).
    mutating func restText() -> String { String(decoding: rest(), as: UTF8.self) }
}

/// `bytes` cut in pieces of `size` bytes (1 … 255; 0 means one piece).
func chunks(_ bytes: [UInt8], size: UInt8) -> [ArraySlice<UInt8>] {
    guard size > 0, !bytes.isEmpty else { return [bytes[...]] }
    return stride(from: 0, to: bytes.count, by: Int(size)).map { bytes[$0..<min(bytes.count, $0 + Int(size))] }
}
