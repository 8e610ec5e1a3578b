@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

@Suite("WebSocket connection state machine")
struct WebSocketMachineTests {
    typealias Event = WebSocketConnectionMachine.Event

    private func machine(limit: Int = 1 << 20, deflate: PerMessageDeflateParameters? = nil) -> WebSocketConnectionMachine {
        WebSocketConnectionMachine(maximumMessageSize: limit, deflate: deflate)
    }

    private func messages(_ events: [Event]) -> [WebSocketMessage] {
        events.compactMap { if case .message(let message) = $0 { message } else { nil } }
    }

    private func failure(_ events: [Event]) -> WebSocketCloseCode? {
        events.compactMap { if case .failed(let error) = $0 { error.code } else { nil } }.first
    }

    /// The frames the machine asked to write, decoded.
    private func written(_ events: [Event]) -> [(opcode: UInt8, payload: [UInt8])] {
        events.compactMap { event in
            guard let bytes = event.writtenBytes, let frame = decodeClientFrame(bytes) else { return nil }
            return (frame.opcode, frame.payload)
        }
    }

    private func closeCodeWritten(_ events: [Event]) -> UInt16? {
        guard let close = written(events).first(where: { $0.opcode == 8 }), close.payload.count >= 2 else { return nil }
        return UInt16(close.payload[0]) << 8 | UInt16(close.payload[1])
    }

    @Test func textAndBinaryMessages() {
        var m = machine()
        let events = m.receive(serverFrame(1, Array("héllo".utf8)) + serverFrame(2, [1, 2, 3]))
        #expect(messages(events) == [.text("héllo"), .binary(Data([1, 2, 3]))])
    }

    @Test func fragmentedMessageWithInterleavedPings() {
        var m = machine()
        let bytes = serverFrame(1, Array("Hel".utf8), fin: false) + serverFrame(9, [7]) + serverFrame(0, Array("lo ".utf8), fin: false)
            + serverFrame(10, [1]) + serverFrame(0, Array("world".utf8))
        var events: [Event] = []
        for byte in bytes { events += m.receive([byte]) }
        #expect(messages(events) == [.text("Hello world")])
        #expect(written(events).map(\.opcode) == [10])
        #expect(written(events).first?.payload == [7])
        #expect(events.contains(.pong([1])))
    }

    @Test func textSplitInsideACodePointAcrossFragments() {
        var m = machine()
        let bytes = Array("𝄞".utf8)
        let events = m.receive(serverFrame(1, Array(bytes[0..<2]), fin: false) + serverFrame(0, Array(bytes[2...])))
        #expect(messages(events) == [.text("𝄞")])
    }

    @Test func invalidUTF8FailsFastWith1007BeforeTheMessageEnds() {
        var m = machine()
        let events = m.receive(serverFrame(1, [0x61, 0xC0, 0x80], fin: false))
        #expect(failure(events) == .invalidFramePayloadData)
        #expect(closeCodeWritten(events) == 1007)
        #expect(m.state == .closed)
        #expect(m.receive(serverFrame(0, [0x61])).isEmpty)
    }

    @Test func textEndingInsideACodePointIs1007() {
        var m = machine()
        #expect(failure(m.receive(serverFrame(1, [0xF0, 0x9D]))) == .invalidFramePayloadData)
    }

    @Test(arguments: [
        serverFrame(0, [1]),                                           // continuation with no message
        serverFrame(1, [0x61], fin: false) + serverFrame(1, [0x61]),  // new message inside a message
        serverFrame(1, [], rsv: 0x40),                                 // RSV1 without deflate
        serverFrame(4, []),                                            // reserved opcode
        serverFrame(8, [0x03]),                                        // 1-byte close payload
        serverFrame(8, [0x03, 0xED]),                                  // close code 1005
        serverFrame(8, [0x03, 0xE7]),                                  // close code 999
        serverFrame(8, [0x0B, 0xB8 - 0x0B]),                           // an unassigned code
    ])
    func protocolViolationsClose1002(bytes: [UInt8]) {
        var m = machine()
        let events = m.receive(bytes)
        #expect(failure(events) == .protocolError)
        #expect(closeCodeWritten(events) == 1002)
    }

    @Test func closeReasonMustBeUTF8() {
        var m = machine()
        let events = m.receive(serverFrame(8, [0x03, 0xE8, 0xC0, 0x80]))
        #expect(failure(events) == .invalidFramePayloadData)
    }

    @Test func messageOverTheLimitIs1009() {
        var m = machine(limit: 100)
        let events = m.receive(serverFrame(2, [UInt8](repeating: 0, count: 60), fin: false) + serverFrame(0, [UInt8](repeating: 0, count: 60)))
        #expect(failure(events) == .messageTooBig)
        #expect(closeCodeWritten(events) == 1009)
        var single = machine(limit: 100)
        #expect(failure(single.receive(Array(serverFrame(2, [UInt8](repeating: 0, count: 200)).prefix(4)))) == .messageTooBig)
    }

    @Test func peerCloseIsEchoedWithItsCode() {
        var m = machine()
        let events = m.receive(serverFrame(8, [0x03, 0xE9] + Array("bye".utf8)))
        #expect(events.contains(.peerClosed(code: .goingAway, reason: "bye")))
        #expect(closeCodeWritten(events) == 1001)
        #expect(events.last == .closeHandshakeComplete)
        #expect(m.state == .closed)
        #expect(m.encode(.text("late")) == nil)
    }

    @Test func emptyPeerCloseIsEchoedEmpty() {
        var m = machine()
        let events = m.receive(serverFrame(8, []))
        #expect(events.contains(.peerClosed(code: nil, reason: "")))
        #expect(written(events).first?.opcode == 8 && written(events).first?.payload == [])
    }

    @Test func clientInitiatedClose() throws {
        var m = machine()
        let started = m.startClose(code: .normalClosure, reason: "done")
        let frame = try #require(started)
        #expect(decodeClientFrame(frame)?.payload == [0x03, 0xE8] + Array("done".utf8))
        #expect(m.state == .closeSent)
        #expect(m.startClose(code: .normalClosure, reason: "") == nil)
        #expect(m.encode(.text("no")) == nil)
        // Data still arriving is delivered; the server's close completes the handshake without an echo.
        let events = m.receive(serverFrame(1, Array("x".utf8)) + serverFrame(8, [0x03, 0xE8]))
        #expect(messages(events) == [.text("x")])
        #expect(written(events).isEmpty)
        #expect(events.last == .closeHandshakeComplete)
    }

    @Test func closeReasonIsCutAtACharacterBoundary() throws {
        let reason = String(repeating: "é", count: 100) // 200 bytes
        let frame = try #require(decodeClientFrame(WebSocketConnectionMachine.closeFrame(code: .normalClosure, reason: reason)))
        #expect(frame.payload.count <= 125)
        #expect(WebSocketUTF8Validator.isValid(frame.payload[2...]))
    }

    @Test func encodesMaskedMessages() throws {
        var m = machine()
        let encoded = m.encode(.text("hi"))
        let bytes = try #require(encoded)
        let frame = try #require(decodeClientFrame(bytes))
        #expect(frame.opcode == 1 && frame.payload == Array("hi".utf8) && !frame.rsv1)
    }
}

@Suite("WebSocket permessage-deflate")
struct WebSocketDeflateTests {
    private let parameters = PerMessageDeflateParameters()

    /// A message compressed as a server would send it (our deflater: the same RFC 7692 framing).
    private func compressed(_ bytes: [UInt8], windowBits: Int = 15) throws -> [UInt8] {
        try #require(WebSocketDeflater(windowBits: windowBits, noContextTakeover: false)).compress(bytes)
    }

    @Test func roundTripThroughTheMachine() throws {
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        #expect(m.compresses)
        let text = String(repeating: "compress me ", count: 1000)
        let encoded = m.encode(.text(text))
        let frame = try #require(encoded)
        let decoded = try #require(decodeClientFrame(frame))
        #expect(decoded.rsv1)
        #expect(decoded.payload.count < 200)
        // Feed it back as if the server had sent it (unmasked), split in fragments.
        var peer = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        let half = decoded.payload.count / 2
        let events = peer.receive(
            serverFrame(1, Array(decoded.payload[0..<half]), fin: false, rsv: 0x40) + serverFrame(9, [1]) + serverFrame(0, Array(decoded.payload[half...]))
        )
        #expect(events.contains(.message(.text(text))))
    }

    @Test func contextTakeoverAcrossMessages() throws {
        let deflater = try #require(WebSocketDeflater(windowBits: 15, noContextTakeover: false))
        let first = deflater.compress(Array("the same words again".utf8))
        let second = deflater.compress(Array("the same words again".utf8))
        #expect(second.count < first.count) // the second refers back to the first
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        let events = m.receive(serverFrame(1, first, rsv: 0x40) + serverFrame(1, second, rsv: 0x40))
        #expect(events == [.message(.text("the same words again")), .message(.text("the same words again"))])
    }

    @Test func noContextTakeoverResetsEachMessage() throws {
        let deflater = try #require(WebSocketDeflater(windowBits: 9, noContextTakeover: true))
        let first = deflater.compress(Array("the same words again".utf8))
        let second = deflater.compress(Array("the same words again".utf8))
        #expect(first == second)
    }

    @Test func uncompressedMessagesStillAllowed() {
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        #expect(m.receive(serverFrame(2, [1, 2])) == [.message(.binary(Data([1, 2])))])
    }

    @Test func bombClosesWith1009() throws {
        let bomb = try compressed([UInt8](repeating: 0, count: 10 << 20))
        #expect(bomb.count < 20_000)
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        let events = m.receive(serverFrame(2, bomb, rsv: 0x40))
        #expect(events.contains { if case .failed(let error) = $0 { error.code == .messageTooBig } else { false } })
        #expect(m.state == .closed)
    }

    @Test func corruptDataCloses() {
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        let events = m.receive(serverFrame(2, [0xFF, 0xFF, 0xFF, 0xFF, 0x00], rsv: 0x40))
        #expect(events.contains { if case .failed = $0 { true } else { false } })
    }

    @Test func compressedInvalidUTF8Is1007() throws {
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        let events = m.receive(serverFrame(1, try compressed([0x61, 0xED, 0xA0, 0x80]), rsv: 0x40))
        #expect(events.contains { if case .failed(let error) = $0 { error.code == .invalidFramePayloadData } else { false } })
    }

    @Test func rsv1OnAContinuationIs1002() throws {
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: parameters)
        let events = m.receive(serverFrame(2, [], fin: false, rsv: 0x40) + serverFrame(0, [], rsv: 0x40))
        #expect(events.contains { if case .failed(let error) = $0 { error.code == .protocolError } else { false } })
    }
}

@Suite("WebSocket permessage-deflate edge cases")
struct WebSocketDeflateEdgeTests {
    @Test func emptyMessagesAfterOthersStayDecodable() throws {
        let deflater = try #require(WebSocketDeflater(windowBits: 15, noContextTakeover: false))
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20, deflate: PerMessageDeflateParameters())
        var events: [WebSocketConnectionMachine.Event] = []
        for text in ["first", "", "", "last"] {
            let payload = deflater.compress(Array(text.utf8))
            #expect(!payload.isEmpty)
            events += m.receive(serverFrame(1, payload, rsv: 0x40))
        }
        #expect(events == [.message(.text("first")), .message(.text("")), .message(.text("")), .message(.text("last"))])
    }
}

@Suite("WebSocket fail-fast UTF-8 inside a frame")
struct WebSocketFailFastTests {
    @Test func badByteFailsBeforeTheFrameEnds() {
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20)
        let frame = serverFrame(1, Array("valid start ".utf8) + [0xC0, 0x80] + [UInt8](repeating: 0x61, count: 10_000))
        // Only the header and the first 20 payload bytes have arrived.
        let events = m.receive(Array(frame[0..<24]))
        #expect(events.contains { if case .failed(let error) = $0 { error.code == .invalidFramePayloadData } else { false } })
    }

    @Test func validTextArrivingInPiecesIsDeliveredOnce() {
        var m = WebSocketConnectionMachine(maximumMessageSize: 1 << 20)
        let text = String(repeating: "ünïcødé 𝄞 ", count: 3000)
        let bytes = serverFrame(1, Array(text.utf8).prefix(10_000).map { $0 }, fin: false) + serverFrame(0, Array(Array(text.utf8)[10_000...]))
        var events: [WebSocketConnectionMachine.Event] = []
        for start in stride(from: 0, to: bytes.count, by: 333) { events += m.receive(Array(bytes[start..<min(start + 333, bytes.count)])) }
        #expect(events == [.message(.text(text))])
    }
}
