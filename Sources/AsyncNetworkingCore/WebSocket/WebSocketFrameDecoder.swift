/// An incremental decoder of server frames: a pure state machine fed byte slices of any size
/// (one byte at a time works), which yields whole frames and fails fast on the first header
/// that breaks RFC 6455 §5.2 — before buffering that frame's payload.
///
/// It checks what a frame header alone shows: masking (a server must not mask: 1002), RSV2/RSV3
/// (1002), RSV1 unless permessage-deflate was negotiated (1002), unknown opcodes (1002), control
/// frames fragmented or longer than 125 bytes (1002), a 64-bit length with its high bit set
/// (1002) and a payload above ``maximumFramePayload`` (1009). Rules across frames
/// (fragmentation, RSV1 on continuations) are ``WebSocketConnectionMachine``'s.
///
/// No declared length can trap, whatever the limit (`Int.max` included): a frame whose header and
/// payload together would pass `Int.max` bytes — more than any buffer can hold, such as the legal
/// 2^63 − 1 — fails with 1009, and every later sum of positions is of bytes actually buffered.
struct WebSocketFrameDecoder: Sendable {
    /// The largest payload accepted in one frame; a larger declared length fails with 1009.
    var maximumFramePayload: Int
    /// Whether RSV1 may be set (permessage-deflate negotiated).
    var allowsRSV1: Bool

    private var buffer: [UInt8] = []
    private var readIndex = 0

    init(maximumFramePayload: Int, allowsRSV1: Bool = false) {
        self.maximumFramePayload = maximumFramePayload
        self.allowsRSV1 = allowsRSV1
    }

    /// Bytes received and not yet returned as frames.
    var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compactIfNeeded()
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    mutating func append(_ bytes: some Collection<UInt8>) {
        compactIfNeeded()
        buffer.append(contentsOf: bytes)
    }

    /// A frame header: what it declares and how many bytes it takes.
    private struct Header {
        var fin: Bool
        var rsv1: Bool
        var opcode: WebSocketOpcode
        var headerLength: Int
        var payloadLength: Int
    }

    /// The header at the read position, `nil` when more bytes are needed, or its violation.
    private func header() throws(WebSocketProtocolError) -> Header? {
        let available = buffer.count - readIndex
        guard available >= 2 else { return nil }
        let first = buffer[readIndex]
        let second = buffer[readIndex + 1]
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        if first & 0x30 != 0 { throw .protocolError("reserved bits RSV2/RSV3 set without a negotiated extension") }
        if rsv1, !allowsRSV1 { throw .protocolError("reserved bit RSV1 set without a negotiated extension") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolError("unknown opcode \(first & 0x0F)")
        }
        if second & 0x80 != 0 { throw .protocolError("a server frame was masked") }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[readIndex + 2]) << 8 | UInt64(buffer[readIndex + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for index in 2..<10 { length = length << 8 | UInt64(buffer[readIndex + index]) }
            if length & (1 << 63) != 0 { throw .protocolError("a 64-bit payload length had its most significant bit set") }
            headerLength = 10
        }
        if opcode.isControl {
            if !fin { throw .protocolError("a control frame was fragmented") }
            if length > 125 { throw .protocolError("a control frame's payload was longer than 125 bytes") }
            if rsv1 { throw .protocolError("RSV1 set on a control frame") }
        }
        if length > UInt64(max(0, maximumFramePayload)) {
            throw .tooBig("a frame of \(length) bytes is over the limit of \(maximumFramePayload)")
        }
        // `headerLength + length` must be an Int: the payload's end is computed from it.
        if length > UInt64(Int.max - headerLength) {
            throw .tooBig("a frame of \(length) bytes is larger than any buffer can hold")
        }
        return Header(fin: fin, rsv1: rsv1, opcode: opcode, headerLength: headerLength, payloadLength: Int(length))
    }

    /// The next whole frame, `nil` when more bytes are needed, or the violation its header shows.
    mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        guard let header = try header() else { return nil }
        // `header()` returned, so the header's bytes are buffered; compare what is left with the
        // payload's length (never `headerLength + payloadLength` against the buffer).
        guard buffer.count - readIndex - header.headerLength >= header.payloadLength else { return nil }
        let start = readIndex + header.headerLength
        let payload = Array(buffer[start..<(start + header.payloadLength)])
        readIndex = start + header.payloadLength
        if readIndex == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            readIndex = 0
        }
        return WebSocketFrame(fin: header.fin, rsv1: header.rsv1, opcode: header.opcode, payload: payload)
    }

    /// The frame being received when its header is whole and its payload is not (after
    /// ``next()`` returned `nil`): `body` gets its opcode, RSV1 and the payload bytes that arrived,
    /// from `offset` on. `nil` when no such frame is pending. For failing fast inside a frame.
    func withPartialPayload<R>(from offset: Int, _ body: (WebSocketOpcode, Bool, UnsafeRawBufferPointer) -> R) -> (result: R, received: Int)? {
        guard let header = try? header() else { return nil }
        let start = readIndex + header.headerLength
        let received = min(buffer.count - start, header.payloadLength)
        guard received >= 0, received < header.payloadLength, offset <= received else { return nil }
        let result = buffer.withUnsafeBytes { body(header.opcode, header.rsv1, UnsafeRawBufferPointer(rebasing: $0[(start + offset)..<(start + received)])) }
        return (result, received)
    }

    private mutating func compactIfNeeded() {
        if readIndex > 0, readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }
}
