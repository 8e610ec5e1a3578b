import Foundation

/// The protocol side of one WebSocket connection, without I/O: fed received bytes, it returns
/// what happened (messages, pongs, bytes to send, the close handshake, failures); asked to send,
/// it returns frame bytes. States: `open` → `closeSent` (our close frame is out, theirs not yet
/// in) → `closed` (both sent, or the connection failed).
///
/// It enforces RFC 6455 across frames — fragmentation, control frames interleaved in a
/// fragmented message, RSV1 only on a message's first frame, incremental UTF-8 validation of
/// text across fragment boundaries (1007), the close frame's code and reason rules (§7.4, 1002
/// and 1007), the message size limit (1009) — and RFC 7692's inflation with its limit. Pings are
/// answered with pongs of the same payload; a close frame is echoed with its code.
struct WebSocketConnectionMachine: Sendable {
    enum State: Sendable, Hashable { case open, closeSent, closed }

    /// What received bytes produced, in order.
    enum Event: Sendable, Hashable {
        case message(WebSocketMessage)
        case pong([UInt8])
        /// Frame bytes to send after everything queued before them (a close echo, our failing
        /// close frame).
        case write([UInt8])
        /// A pong answering the peer's ping: may go ahead of queued messages (at a frame
        /// boundary), and is queued apart so that its cost is bounded on its own.
        case reply([UInt8])
        /// The peer's close frame: its code (`nil` when it carried none) and reason.
        case peerClosed(code: WebSocketCloseCode?, reason: String)
        /// Both close frames have been exchanged: the TCP connection may be closed.
        case closeHandshakeComplete
        /// The peer broke the protocol: our close frame with the error's code (if still open)
        /// precedes this in a `.write`; the connection should be closed once it is flushed.
        case failed(WebSocketProtocolError)
    }

    private(set) var state = State.open
    let maximumMessageSize: Int
    private var decoder: WebSocketFrameDecoder
    private let deflater: WebSocketDeflater?
    private let inflater: WebSocketInflater?

    private var messageOpcode: WebSocketOpcode?
    private var messageCompressed = false
    private var messageBuffer: [UInt8] = []
    private var utf8 = WebSocketUTF8Validator()
    /// UTF-8 checking of a text frame whose payload is still arriving (fail fast inside a frame).
    private var partialUTF8 = WebSocketUTF8Validator()
    private var partialChecked = 0

    /// A machine for an open connection. `deflate` is what the handshake negotiated, if anything.
    init(maximumMessageSize: Int, deflate: PerMessageDeflateParameters? = nil) {
        self.maximumMessageSize = maximumMessageSize
        if let deflate {
            deflater = WebSocketDeflater(windowBits: deflate.clientMaxWindowBits, noContextTakeover: deflate.clientNoContextTakeover)
            inflater = WebSocketInflater(noContextTakeover: deflate.serverNoContextTakeover)
        } else {
            deflater = nil
            inflater = nil
        }
        decoder = WebSocketFrameDecoder(maximumFramePayload: maximumMessageSize, allowsRSV1: inflater != nil)
    }

    /// Whether permessage-deflate is on (zlib loaded for both directions).
    var compresses: Bool { deflater != nil && inflater != nil }

    /// Bytes received and not yet part of a whole frame.
    var bufferedByteCount: Int { decoder.bufferedByteCount + messageBuffer.count }

    // MARK: receiving

    /// Feeds received bytes.
    mutating func receive(_ bytes: UnsafeRawBufferPointer) -> [Event] {
        guard state != .closed else { return [] }
        decoder.append(bytes)
        return drain()
    }

    /// Feeds received bytes.
    mutating func receive(_ bytes: [UInt8]) -> [Event] {
        bytes.withUnsafeBytes { receive($0) }
    }

    private mutating func drain() -> [Event] {
        var events: [Event] = []
        while state != .closed {
            do {
                guard let frame = try decoder.next() else {
                    try checkPartialText()
                    break
                }
                partialChecked = 0
                try handle(frame, events: &events)
            } catch {
                fail(error, events: &events)
            }
        }
        return events
    }

    /// Validates the UTF-8 of a text frame's payload as it arrives, before the frame is whole,
    /// so a bad byte fails the connection at once (uncompressed text only; the whole frame is
    /// validated again in ``append(_:events:)``).
    private mutating func checkPartialText() throws(WebSocketProtocolError) {
        let checked = partialChecked
        let fresh = checked == 0
        let start = utf8
        let isNewMessage = messageOpcode == nil
        let continuesText = messageOpcode == .text && !messageCompressed
        var validator = partialUTF8
        let outcome = decoder.withPartialPayload(from: checked) { opcode, rsv1, bytes -> Bool? in
            switch opcode {
            case .text where isNewMessage && !rsv1:
                if fresh { validator = WebSocketUTF8Validator() }
            case .continuation where continuesText:
                if fresh { validator = start }
            default:
                return nil
            }
            return validator.feed(bytes)
        }
        guard let outcome, let valid = outcome.result else { return }
        partialUTF8 = validator
        partialChecked = outcome.received
        guard valid else { throw .invalidData("a text message is not valid UTF-8") }
    }

    private mutating func fail(_ error: WebSocketProtocolError, events: inout [Event]) {
        if state == .open { events.append(.write(Self.closeFrame(code: error.code, reason: error.reason))) }
        state = .closed
        messageBuffer = []
        events.append(.failed(error))
    }

    private mutating func handle(_ frame: WebSocketFrame, events: inout [Event]) throws(WebSocketProtocolError) {
        switch frame.opcode {
        case .ping:
            if state == .open { events.append(.reply(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .pong, payload: frame.payload)))) }
        case .pong:
            events.append(.pong(frame.payload))
        case .close:
            let (code, reason) = try Self.parseClose(frame.payload)
            events.append(.peerClosed(code: code, reason: reason))
            if state == .open {
                let echo = code.map { Self.closeFrame(code: $0, reason: "") } ?? WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close))
                events.append(.write(echo))
            }
            state = .closed
            messageBuffer = []
            events.append(.closeHandshakeComplete)
        case .text, .binary:
            guard messageOpcode == nil else { throw .protocolError("a new message began before the previous one ended") }
            messageOpcode = frame.opcode
            messageCompressed = frame.rsv1
            messageBuffer = []
            utf8 = WebSocketUTF8Validator()
            try append(frame, events: &events)
        case .continuation:
            guard messageOpcode != nil else { throw .protocolError("a continuation frame came with no message to continue") }
            if frame.rsv1 { throw .protocolError("RSV1 set on a continuation frame") }
            try append(frame, events: &events)
        }
    }

    private mutating func append(_ frame: WebSocketFrame, events: inout [Event]) throws(WebSocketProtocolError) {
        let start = messageBuffer.count
        if messageCompressed, let inflater {
            try inflater.inflate(frame.payload, into: &messageBuffer, limit: maximumMessageSize)
            if frame.fin { try inflater.finishMessage(into: &messageBuffer, limit: maximumMessageSize) }
        } else {
            guard messageBuffer.count + frame.payload.count <= maximumMessageSize else {
                throw .tooBig("a message grew past the limit of \(maximumMessageSize) bytes")
            }
            messageBuffer.append(contentsOf: frame.payload)
        }
        if messageOpcode == .text {
            let valid = messageBuffer.withUnsafeBytes { utf8.feed(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            guard valid else { throw .invalidData("a text message is not valid UTF-8") }
        }
        guard frame.fin else { return }
        let message: WebSocketMessage
        if messageOpcode == .text {
            guard utf8.isComplete else { throw .invalidData("a text message ends inside a UTF-8 sequence") }
            message = .text(String(decoding: messageBuffer, as: UTF8.self))
        } else {
            message = .binary(Data(messageBuffer))
        }
        messageOpcode = nil
        messageBuffer = []
        events.append(.message(message))
    }

    /// The code and reason of a close frame's payload (RFC 6455 §5.5.1, §7.4).
    static func parseClose(_ payload: [UInt8]) throws(WebSocketProtocolError) -> (WebSocketCloseCode?, String) {
        if payload.isEmpty { return (nil, "") }
        guard payload.count >= 2 else { throw .protocolError("a close frame's payload was 1 byte") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw .protocolError("the close code \(code.rawValue) may not be sent") }
        let reasonBytes = payload[2...]
        guard WebSocketUTF8Validator.isValid(reasonBytes) else { throw .invalidData("a close reason is not valid UTF-8") }
        return (code, String(decoding: reasonBytes, as: UTF8.self))
    }

    // MARK: sending

    /// The frame bytes of a message, or `nil` once our close frame is out.
    mutating func encode(_ message: WebSocketMessage) -> [UInt8]? {
        guard state == .open else { return nil }
        return Self.encode(message, deflater: deflater)
    }

    /// The compressor of outgoing messages (permessage-deflate), shared by copies of the machine.
    /// Its context runs across messages: it must compress them one at a time, in the order their
    /// frames are queued (``WebSocketChannel/send(_:)``'s send turns ensure it).
    var messageDeflater: WebSocketDeflater? { deflater }

    /// A message's frame bytes: compressed with `deflater` when given, masked with a fresh key.
    /// Needs no lock but the deflater's exclusive use.
    static func encode(_ message: WebSocketMessage, deflater: WebSocketDeflater?) -> [UInt8] {
        var payload: [UInt8]
        let opcode: WebSocketOpcode
        switch message {
        case .text(let text):
            payload = Array(text.utf8)
            opcode = .text
        case .binary(let data):
            payload = Array(data)
            opcode = .binary
        }
        var compressed = false
        if let deflater {
            payload = deflater.compress(payload)
            compressed = true
        }
        return WebSocketFrameEncoder.encode(WebSocketFrame(rsv1: compressed, opcode: opcode, payload: payload))
    }

    /// A ping's frame bytes, or `nil` once our close frame is out.
    func encodePing(_ payload: [UInt8]) -> [UInt8]? {
        guard state == .open else { return nil }
        return WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .ping, payload: payload))
    }

    /// Starts the closing handshake: our close frame's bytes, or `nil` when one was already sent
    /// or the connection is closed.
    mutating func startClose(code: WebSocketCloseCode, reason: String) -> [UInt8]? {
        guard state == .open else { return nil }
        state = .closeSent
        return Self.closeFrame(code: code, reason: reason)
    }

    /// Marks the connection closed without a handshake (the transport ended or timed out).
    mutating func abort() { state = .closed }

    /// A close frame with `code` and `reason` (cut to 123 bytes at a character boundary).
    static func closeFrame(code: WebSocketCloseCode, reason: String) -> [UInt8] {
        var reasonBytes = Array(reason.utf8)
        if reasonBytes.count > 123 {
            var cut = 123
            while cut > 0, reasonBytes[cut] & 0xC0 == 0x80 { cut -= 1 }
            reasonBytes = Array(reasonBytes[0..<cut])
        }
        let payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reasonBytes
        return WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .close, payload: payload))
    }
}
