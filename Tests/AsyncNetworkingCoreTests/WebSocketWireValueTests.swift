import Foundation
import Testing
@testable import AsyncNetworkingCore

/// Rule: no value a WebSocket peer sends can trap, whatever the configured limits — the frame
/// length (7-, 16- and 64-bit forms, at 0, 125, 2^16 − 1, Int.max, 2^63 − 1, 2^63, 2^64 − 1),
/// the `permessage-deflate` window bits (any digit string, signs, leading zeros) and the shape of
/// `Sec-WebSocket-Extensions`. The checks that trapped before their fix run in a child process
/// (an exit test), so a trap fails the test instead of killing the run.
@Suite("WebSocket wire values at their extremes")
struct WebSocketWireValueTests {
    /// A server frame header (FIN, binary) declaring `length` in the 64-bit form.
    static func header64(_ length: UInt64, opcode: UInt8 = 0x2) -> [UInt8] {
        [0x80 | opcode, 127] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: length >> (8 * UInt64($0))) }
    }

    /// What the decoder says of a 64-bit `length` under `limit`: "frame", "more" or the close code.
    static func outcome(length: UInt64, limit: Int, payload: Int = 0, opcode: UInt8 = 0x2) -> String {
        var decoder = WebSocketFrameDecoder(maximumFramePayload: limit)
        decoder.append(header64(length, opcode: opcode) + [UInt8](repeating: 0, count: payload))
        do {
            return try decoder.next() == nil ? "more" : "frame"
        } catch {
            return "\(error.code.rawValue)"
        }
    }

    /// Every length and limit at its extremes; `precondition` so a child process reports a wrong
    /// outcome as a failed exit, like a trap.
    static func checkFrameLengths() {
        let top = UInt64(Int.max)
        let limits = [0, 1, 125, 1 << 20, Int.max - 10, Int.max - 9, Int.max - 1, Int.max]
        let lengths: [UInt64] = [0, 1, 125, 126, 65_535, 65_536, top - 10, top - 9, top - 1, top, top + 1, .max]
        for limit in limits {
            for length in lengths {
                let expected: String
                if length > top {
                    expected = "1002" // the most significant bit must be 0
                } else if length > UInt64(limit) || length > top - 10 {
                    expected = "1009" // over the limit, or header + payload past Int.max
                } else {
                    expected = length == 0 ? "frame" : "more"
                }
                let got = outcome(length: length, limit: limit)
                precondition(got == expected, "length \(length), limit \(limit): \(got), expected \(expected)")
            }
        }
        // A ping may not declare more than 125 bytes, whatever the limit.
        precondition(outcome(length: top, limit: .max, opcode: 0x9) == "1002")
        // The partial-payload view (fail-fast UTF-8) of a frame whose length is just inside Int.max.
        var decoder = WebSocketFrameDecoder(maximumFramePayload: .max)
        decoder.append(header64(top - 10, opcode: 0x1) + Array("héllo".utf8))
        precondition((try? decoder.next()) == .some(nil))
        let seen = decoder.withPartialPayload(from: 0) { _, _, bytes in bytes.count }
        precondition(seen?.result == 6 && seen?.received == 6)
    }

    @Test func everyFrameLengthUnderEveryLimitFailsCleanly() async {
        await #expect(processExitsWith: .success) { WebSocketWireValueTests.checkFrameLengths() }
    }

    /// The connection machine over the same bytes: a typed 1009 and our close frame, not a trap.
    static func checkMachine() {
        var machine = WebSocketConnectionMachine(maximumMessageSize: .max)
        let events = machine.receive(header64(UInt64(Int.max)))
        precondition(events.contains(.failed(.tooBig("a frame of 9223372036854775807 bytes is larger than any buffer can hold"))), "\(events)")
        precondition(machine.state == .closed)
    }

    @Test func theMachineFailsTheConnectionOnTheLongestLegalLength() async {
        await #expect(processExitsWith: .success) { WebSocketWireValueTests.checkMachine() }
    }

    static func handshake(extensions: String) -> Result<WebSocketHandshake.Outcome, WebSocketHandshakeError> {
        let handshake = WebSocketHandshake(
            url: URL(string: "ws://127.0.0.1/")!, protocols: [], headers: [], compression: .standard, key: "dGhlIHNhbXBsZSBub25jZQ=="
        )
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(WebSocketHandshake.acceptValue(for: handshake.key))\r\nSec-WebSocket-Extensions: \(extensions)"
        return handshake.validate(head: Array(head.utf8))
    }

    /// Extension items made only of separators have no name: refused, never indexed.
    static func checkExtensionShapes() {
        for value in [";", ";;", " ; ", ",;,", "permessage-deflate, ;", ";permessage-deflate"] {
            guard case .failure = handshake(extensions: value) else { preconditionFailure("\(value) was accepted") }
        }
    }

    @Test func anExtensionItemOfOnlySemicolonsIsRefused() async {
        await #expect(processExitsWith: .success) { WebSocketWireValueTests.checkExtensionShapes() }
    }

    @Test(arguments: [
        "8", "15", "0", "7", "16", "-1", "+9", "09", "9223372036854775807", "9223372036854775808",
        "18446744073709551615", "-9223372036854775808", String(repeating: "9", count: 4096), "\"10\"", "1_0", "١٠",
    ])
    func windowBitsAtTheirExtremes(text: String) {
        let accepted: Set<String> = ["8", "15", "\"10\""]
        let result = PerMessageDeflateParameters.accepting(
            [(name: "server_max_window_bits", value: text)], offer: .standard
        )
        switch result {
        case .success(let parameters):
            #expect(accepted.contains(text), "\(text) was accepted")
            #expect((8...15).contains(parameters.serverMaxWindowBits))
        case .failure:
            #expect(!accepted.contains(text), "\(text) was refused")
        }
    }
}
