@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// A server frame's bytes (unmasked), with any header bits.
func serverFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, masked: Bool = false) -> [UInt8] {
    var bytes: [UInt8] = [(fin ? 0x80 : 0) | rsv | opcode]
    let maskBit: UInt8 = masked ? 0x80 : 0
    if payload.count < 126 {
        bytes.append(maskBit | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    } else {
        bytes.append(maskBit | 127)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: payload.count >> shift)) }
    }
    if masked { bytes += [0, 0, 0, 0] }
    return bytes + payload
}

/// Decodes a client frame (masked) back to its opcode, flags and payload.
func decodeClientFrame(_ bytes: [UInt8]) -> (fin: Bool, rsv1: Bool, opcode: UInt8, payload: [UInt8])? {
    guard bytes.count >= 6, bytes[1] & 0x80 != 0 else { return nil }
    var length = Int(bytes[1] & 0x7F)
    var index = 2
    if length == 126 {
        length = Int(bytes[2]) << 8 | Int(bytes[3])
        index = 4
    } else if length == 127 {
        length = 0
        for i in 2..<10 { length = length << 8 | Int(bytes[i]) }
        index = 10
    }
    let key = Array(bytes[index..<(index + 4)])
    let payload = bytes[(index + 4)...].enumerated().map { $0.element ^ key[$0.offset & 3] }
    guard payload.count == length else { return nil }
    return (bytes[0] & 0x80 != 0, bytes[0] & 0x40 != 0, bytes[0] & 0x0F, payload)
}

extension WebSocketConnectionMachine.Event {
    /// The frame bytes of a `.write` or a `.reply` (a pong), else `nil`.
    var writtenBytes: [UInt8]? {
        switch self {
        case .write(let bytes), .reply(let bytes): bytes
        default: nil
        }
    }
}

@Suite("WebSocket core: SHA-1, handshake, frames, UTF-8")
struct WebSocketCoreTests {
    @Test func sha1KnownVectors() {
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest([UInt8]())) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    @Test func acceptValueOfTheRFCExample() {
        #expect(WebSocketHandshake.acceptValue(for: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func freshKeysAreSixteenRandomBytes() {
        let keys = (0..<20).map { _ in WebSocketHandshake.freshKey() }
        #expect(Set(keys).count == 20)
        #expect(keys.allSatisfy { Data(base64Encoded: $0)?.count == 16 })
    }

    private func handshake(protocols: [String] = ["chat"], compression: WebSocketCompression? = nil) -> WebSocketHandshake {
        WebSocketHandshake(
            url: URL(string: "ws://example.test:8080/path?q=1")!, protocols: protocols,
            headers: [("X-Token", "t")], compression: compression, key: "dGhlIHNhbXBsZSBub25jZQ=="
        )
    }

    private func head(_ lines: [String]) -> [UInt8] { Array(lines.joined(separator: "\r\n").utf8) }

    private let goodLines = [
        "HTTP/1.1 101 Switching Protocols", "Upgrade: WebSocket", "Connection: keep-alive, Upgrade",
        "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=",
    ]

    @Test func requestCarriesTheHandshakeFields() {
        let text = String(decoding: handshake(compression: .standard).requestBytes, as: UTF8.self)
        #expect(text.hasPrefix("GET /path?q=1 HTTP/1.1\r\nHost: example.test:8080\r\n"))
        for line in ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                     "Sec-WebSocket-Version: 13", "Sec-WebSocket-Protocol: chat", "X-Token: t",
                     "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits"] {
            #expect(text.contains("\r\n\(line)\r\n"), "\(line)")
        }
        #expect(text.hasSuffix("\r\n\r\n"))
    }

    @Test func acceptsAGoodResponse() throws {
        let outcome = try handshake().validate(head: head(goodLines + ["Sec-WebSocket-Protocol: chat"])).get()
        #expect(outcome.subprotocol == "chat")
        #expect(outcome.extensions.isEmpty)
    }

    @Test(arguments: [
        (["HTTP/1.1 200 OK"], "instead of 101"),
        (["HTTP/1.1 302 Found", "Location: /x"], "redirect"),
        (["HTTP/1.1 101 Switching Protocols", "Connection: Upgrade", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="], "Upgrade"),
        (["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="], "Connection"),
        (["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Accept: AAAA"], "Accept"),
        (["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade"], "Accept"),
    ])
    func refusesBadResponses(lines: [String], expected: String) {
        guard case .failure(let error) = handshake().validate(head: head(lines)) else {
            Issue.record("accepted \(lines)")
            return
        }
        #expect(error.message.contains(expected), "\(error.message)")
    }

    @Test func refusesASubprotocolNotOffered() {
        guard case .failure(let error) = handshake().validate(head: head(goodLines + ["Sec-WebSocket-Protocol: other"])) else {
            Issue.record("accepted")
            return
        }
        #expect(error.message.contains("subprotocol"))
    }

    @Test func refusesAnExtensionNotOffered() {
        let lines = goodLines + ["Sec-WebSocket-Extensions: permessage-deflate"]
        guard case .failure(let error) = handshake(compression: nil).validate(head: head(lines)) else {
            Issue.record("accepted")
            return
        }
        #expect(error.message.contains("not offered"))
        let other = goodLines + ["Sec-WebSocket-Extensions: x-webkit-deflate-frame"]
        #expect(throws: WebSocketHandshakeError.self) { try handshake(compression: .standard).validate(head: head(other)).get() }
    }

    @Test func negotiatesDeflateParameters() throws {
        let lines = goodLines + ["Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=10; client_no_context_takeover; client_max_window_bits=12"]
        let outcome = try handshake(compression: .standard).validate(head: head(lines)).get()
        #expect(outcome.deflate == PerMessageDeflateParameters(clientMaxWindowBits: 12, serverMaxWindowBits: 10, clientNoContextTakeover: true, serverNoContextTakeover: false))
        #expect(outcome.extensions.count == 1)
    }

    @Test(arguments: [
        "permessage-deflate; server_max_window_bits=16",
        "permessage-deflate; server_max_window_bits",
        "permessage-deflate; client_max_window_bits=8",
        "permessage-deflate; server_no_context_takeover=1",
        "permessage-deflate; foo",
        "permessage-deflate; server_no_context_takeover; server_no_context_takeover",
        "permessage-deflate, permessage-deflate",
    ])
    func refusesBadDeflateResponses(extensions: String) {
        let lines = goodLines + ["Sec-WebSocket-Extensions: \(extensions)"]
        #expect(throws: WebSocketHandshakeError.self) { try handshake(compression: .standard).validate(head: head(lines)).get() }
    }

    @Test func deflateResponseAboveTheOfferIsRefused() {
        let offer = WebSocketCompression(clientMaxWindowBits: 10, serverMaxWindowBits: 10)
        for line in ["permessage-deflate; server_max_window_bits=12", "permessage-deflate; client_max_window_bits=11"] {
            #expect(throws: WebSocketHandshakeError.self) { try handshake(compression: offer).validate(head: head(goodLines + ["Sec-WebSocket-Extensions: \(line)"])).get() }
        }
    }

    @Test func encoderMasksWithAFreshKeyPerFrame() {
        let frame = WebSocketFrame(opcode: .text, payload: Array("Hello".utf8))
        let one = WebSocketFrameEncoder.encode(frame)
        let two = WebSocketFrameEncoder.encode(frame)
        #expect(one[0] == 0x81 && one[1] == 0x85)
        #expect(one != two || one[2..<6] == two[2..<6]) // keys differ almost always
        var keys: Set<[UInt8]> = []
        for _ in 0..<50 { keys.insert(Array(WebSocketFrameEncoder.encode(frame)[2..<6])) }
        #expect(keys.count > 40)
        #expect(decodeClientFrame(one)?.payload == Array("Hello".utf8))
        // RFC 6455 §5.7's masked example.
        let example = WebSocketFrameEncoder.encode(frame, maskKey: [0x37, 0xFA, 0x21, 0x3D])
        #expect(example == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test(arguments: [0, 125, 126, 65535, 65536, 200_000])
    func encoderLengthForms(length: Int) throws {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload))
        let decoded = try #require(decodeClientFrame(bytes))
        #expect(decoded.payload == payload)
        #expect(decoded.opcode == 2 && decoded.fin)
    }

    @Test func decoderAcceptsBytesOneAtATime() throws {
        let stream = serverFrame(1, Array("Hello".utf8)) + serverFrame(2, [UInt8](repeating: 7, count: 300)) + serverFrame(2, [UInt8](repeating: 9, count: 70_000))
        var decoder = WebSocketFrameDecoder(maximumFramePayload: 1 << 20)
        var frames: [WebSocketFrame] = []
        for byte in stream {
            decoder.append([byte])
            while let frame = try decoder.next() { frames.append(frame) }
        }
        #expect(frames.map(\.payload.count) == [5, 300, 70_000])
        #expect(frames[0].opcode == .text && frames[1].opcode == .binary)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test(arguments: [
        (serverFrame(1, [], rsv: 0x40), 1002),
        (serverFrame(1, [], rsv: 0x20), 1002),
        (serverFrame(1, [], rsv: 0x10), 1002),
        (serverFrame(3, []), 1002),
        (serverFrame(0xB, []), 1002),
        (serverFrame(1, [1], masked: true), 1002),
        (serverFrame(9, [], fin: false), 1002),
        (serverFrame(9, [UInt8](repeating: 0, count: 126)), 1002),
        ([0x82, 127, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002),
        ([0x82, 127, 0, 0, 0, 0, 0, 0x11, 0, 0], 1009),
    ] as [([UInt8], UInt16)])
    func decoderRefusesBadHeaders(bytes: [UInt8], code: UInt16) {
        var decoder = WebSocketFrameDecoder(maximumFramePayload: 1 << 20)
        decoder.append(bytes)
        do {
            _ = try decoder.next()
            Issue.record("accepted \(bytes)")
        } catch {
            #expect(error.code.rawValue == code)
        }
    }

    @Test func utf8ValidatorAcrossSplits() {
        let text = Array("κόσμε 𝄞 ✓ ascii".utf8)
        for split in 0...text.count {
            var validator = WebSocketUTF8Validator()
            let first = validator.feed(text[0..<split])
            let second = validator.feed(text[split...])
            #expect(first && second)
            #expect(validator.isComplete)
        }
        var partial = WebSocketUTF8Validator()
        let fed = partial.feed([0xF0, 0x9D])
        #expect(fed)
        #expect(!partial.isComplete)
    }

    @Test(arguments: [
        [0xC0, 0x80] as [UInt8], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x80], [0xE0, 0x80, 0x80],
        [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64],
    ])
    func utf8ValidatorRefuses(bytes: [UInt8]) {
        #expect(!WebSocketUTF8Validator.isValid(bytes))
    }

    @Test func utf8ValidatorFailsFastBeforeTheEnd() {
        var validator = WebSocketUTF8Validator()
        let fed = validator.feed([0x61, 0xF5])
        #expect(!fed) // refused on the first bad byte, nothing more needed
    }

    @Test func closeCodeRules() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] {
            #expect(WebSocketCloseCode(rawValue: code).isSendable, "\(code)")
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            #expect(!WebSocketCloseCode(rawValue: code).isSendable, "\(code)")
        }
    }
}
