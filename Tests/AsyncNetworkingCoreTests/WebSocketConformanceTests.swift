@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Autobahn|Testsuite-style client cases (categories 1–7, 9, 12–13 of `autobahntestsuite/case/`),
/// ported to what a server sends and what the client must do, and run on the connection machine
/// without I/O — each case fed both in one slice and one byte at a time, which must agree. The
/// report is per category as Autobahn's: OK (exact), NON-STRICT (right outcome, but the failure
/// was noticed later than the case allows: after the frame that made it certain, or — 6.4.3 —
/// at the end of the frame instead of at the bad byte inside it), FAILED.
@Suite("WebSocket conformance (Autobahn-style categories)")
struct WebSocketConformanceTests {
    /// What the client must do with a case's bytes.
    struct Expected: Sendable {
        var messages: [WebSocketMessage] = []
        /// Pong payloads the client writes, in order.
        var pongs: [[UInt8]] = []
        /// The close code the client writes: an echo, or its failing code; `nil` for none.
        var closeCode: UInt16?
        /// For a failure: the index in the input of the last byte of the frame that makes it
        /// certain (Autobahn's fail-fast is per frame), or of the byte itself where Autobahn asks
        /// for failing inside a frame (6.4.3).
        var failFastAt: Int?
    }

    struct Case: Sendable, CustomStringConvertible {
        var id: String
        var category: String
        var input: [UInt8]
        var expected: Expected
        var deflate = false
        var limit = 1 << 20
        var description: String { id }
    }

    enum Verdict: String { case ok = "OK", nonStrict = "NON-STRICT", failed = "FAILED" }

    private static func close(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        serverFrame(8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8))
    }

    private static func text(_ s: String) -> WebSocketMessage { .text(s) }

    static let cases: [Case] = {
        var all: [Case] = []
        func add(_ id: String, _ category: String, _ input: [UInt8], _ expected: Expected, deflate: Bool = false, limit: Int = 1 << 20) {
            all.append(Case(id: id, category: category, input: input, expected: expected, deflate: deflate, limit: limit))
        }
        // 1 Framing
        for (index, length) in [0, 125, 126, 127, 128, 65535, 65536].enumerated() {
            let payload = String(repeating: "*", count: length)
            add("1.1.\(index + 1)", "1 Framing", serverFrame(1, Array(payload.utf8)) + close(1000), Expected(messages: [.text(payload)], closeCode: 1000))
            let bytes = [UInt8](repeating: 0xFE, count: length)
            add("1.2.\(index + 1)", "1 Framing", serverFrame(2, bytes) + close(1000), Expected(messages: [.binary(Data(bytes))], closeCode: 1000))
        }
        // 2 Pings/Pongs
        add("2.1", "2 Pings/Pongs", serverFrame(9, []) + close(1000), Expected(pongs: [[]], closeCode: 1000))
        add("2.2", "2 Pings/Pongs", serverFrame(9, Array("Hello, world!".utf8)) + close(1000), Expected(pongs: [Array("Hello, world!".utf8)], closeCode: 1000))
        add("2.3", "2 Pings/Pongs", serverFrame(9, [0, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0, 0xFF]) + close(1000), Expected(pongs: [[0, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0, 0xFF]], closeCode: 1000))
        add("2.4", "2 Pings/Pongs", serverFrame(9, [UInt8](repeating: 0xFE, count: 125)) + close(1000), Expected(pongs: [[UInt8](repeating: 0xFE, count: 125)], closeCode: 1000))
        add("2.5", "2 Pings/Pongs", serverFrame(9, [UInt8](repeating: 0xFE, count: 126)), Expected(closeCode: 1002, failFastAt: 3))
        add("2.6", "2 Pings/Pongs", serverFrame(10, Array("unsolicited".utf8)) + close(1000), Expected(closeCode: 1000))
        let pingPayloads: [[UInt8]] = (0..<10).map { Array("payload-\($0)".utf8) }
        var pings: [UInt8] = []
        for payload in pingPayloads { pings += serverFrame(9, payload) }
        add("2.10", "2 Pings/Pongs", pings + close(1000), Expected(pongs: pingPayloads, closeCode: 1000))
        // 3 Reserved bits
        for (index, rsv) in ([0x40, 0x20, 0x10, 0x60, 0x50, 0x30, 0x70] as [UInt8]).enumerated() {
            let opcode: UInt8 = [1, 1, 1, 2, 9, 1, 8][index]
            let input = serverFrame(1, Array("ok".utf8)) + serverFrame(opcode, [], rsv: rsv)
            add("3.\(index + 1)", "3 Reserved Bits", input, Expected(messages: [text("ok")], closeCode: 1002, failFastAt: 4))
        }
        // 4 Opcodes
        for (index, opcode) in ([3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] as [UInt8]).enumerated() {
            let input = serverFrame(1, Array("ok".utf8)) + serverFrame(opcode, [1])
            add("4.\(index < 5 ? 1 : 2).\(index % 5 + 1)", "4 Opcodes", input, Expected(messages: [text("ok")], closeCode: 1002, failFastAt: 4))
        }
        // 5 Fragmentation
        add("5.1", "5 Fragmentation", serverFrame(9, [1], fin: false) + serverFrame(0, [2]), Expected(closeCode: 1002, failFastAt: 0))
        add("5.2", "5 Fragmentation", serverFrame(10, [1], fin: false) + serverFrame(0, [2]), Expected(closeCode: 1002, failFastAt: 0))
        add("5.3", "5 Fragmentation", serverFrame(1, Array("frag".utf8), fin: false) + serverFrame(0, Array("ment1".utf8)) + close(1000),
            Expected(messages: [text("fragment1")], closeCode: 1000))
        add("5.6", "5 Fragmentation", serverFrame(1, Array("frag".utf8), fin: false) + serverFrame(9, Array("ping".utf8)) + serverFrame(0, Array("ment1".utf8)) + close(1000),
            Expected(messages: [text("fragment1")], pongs: [Array("ping".utf8)], closeCode: 1000))
        var interleaved: [UInt8] = []
        var interleavedPongs: [[UInt8]] = []
        for index in 0..<20 {
            let opcode: UInt8 = index == 0 ? 1 : 0
            interleaved += serverFrame(opcode, [0x61], fin: index == 19)
            interleaved += serverFrame(9, [UInt8(index)])
            interleavedPongs.append([UInt8(index)])
        }
        add("5.8", "5 Fragmentation", interleaved + close(1000),
            Expected(messages: [text(String(repeating: "a", count: 20))], pongs: interleavedPongs, closeCode: 1000))
        add("5.9", "5 Fragmentation", serverFrame(0, Array("cont".utf8)) + serverFrame(1, Array("x".utf8)), Expected(closeCode: 1002, failFastAt: 5))
        add("5.15", "5 Fragmentation", serverFrame(1, [0x61], fin: false) + serverFrame(0, [0x62]) + serverFrame(0, [0x63], fin: false) + serverFrame(0, [0x64]),
            Expected(messages: [text("ab")], closeCode: 1002, failFastAt: 8))
        add("5.18", "5 Fragmentation", serverFrame(1, [0x61], fin: false) + serverFrame(1, [0x62]), Expected(closeCode: 1002, failFastAt: 5))
        add("5.20", "5 Fragmentation", serverFrame(1, [0x61], fin: false) + serverFrame(10, [1]) + serverFrame(0, [0x62], fin: false) + serverFrame(9, [2]) + serverFrame(0, [0x63]) + close(1000),
            Expected(messages: [text("abc")], pongs: [[2]], closeCode: 1000))
        // 6 UTF-8 handling
        let valid = "Hello-µ@ßöäüàá-UTF-8!!"
        add("6.2.1", "6 UTF-8 Handling", serverFrame(1, Array(valid.utf8)) + close(1000), Expected(messages: [text(valid)], closeCode: 1000))
        let validBytes = Array(valid.utf8)
        var perByte: [UInt8] = []
        for (index, byte) in validBytes.enumerated() {
            let opcode: UInt8 = index == 0 ? 1 : 0
            perByte += serverFrame(opcode, [byte], fin: index == validBytes.count - 1)
        }
        add("6.2.3", "6 UTF-8 Handling", perByte + close(1000), Expected(messages: [text(valid)], closeCode: 1000))
        let kosme: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
        let bad: [UInt8] = kosme + [0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64]
        add("6.3.1", "6 UTF-8 Handling", serverFrame(1, bad), Expected(closeCode: 1007, failFastAt: 21))
        add("6.3.2", "6 UTF-8 Handling", serverFrame(1, Array(bad[0..<13]), fin: false) + serverFrame(0, Array(bad[13...])),
            Expected(closeCode: 1007, failFastAt: 2 + 12))
        let invalidSequences: [[UInt8]] = [[0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0xAF], [0xF0, 0x80, 0x80, 0xAF], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xFE], [0xFF], [0x80], [0xBF]]
        for (index, sequence) in invalidSequences.enumerated() {
            let input = serverFrame(1, [0x61] + sequence + Array("zzzzzzzzzz".utf8), fin: false) + serverFrame(0, Array("end".utf8))
            add("6.\(8 + index).1", "6 UTF-8 Handling", input, Expected(closeCode: 1007, failFastAt: 12 + sequence.count))
        }
        // 6.4.3: the bad code point arrives in the middle of one frame's payload: the client must
        // fail at that byte, before the frame ends (it validates a text frame as it arrives).
        let chunked643 = serverFrame(1, kosme + [0xF4, 0x90, 0x80, 0x80] + Array("edited".utf8))
        add("6.4.3", "6 UTF-8 Handling", chunked643, Expected(closeCode: 1007, failFastAt: 2 + kosme.count + 1))
        let truncated = Array("𝄞".utf8)
        add("6.6.x", "6 UTF-8 Handling", serverFrame(1, [0x61] + truncated[0..<3]), Expected(closeCode: 1007, failFastAt: 5))
        // 7 Close handling
        add("7.1.1", "7 Close Handling", serverFrame(1, Array("Hello".utf8)) + close(1000), Expected(messages: [text("Hello")], closeCode: 1000))
        add("7.1.2", "7 Close Handling", close(1000) + serverFrame(1, Array("ignored".utf8)) + serverFrame(9, []), Expected(closeCode: 1000))
        add("7.3.1", "7 Close Handling", serverFrame(8, []), Expected(closeCode: nil))
        add("7.3.2", "7 Close Handling", serverFrame(8, [0x03]), Expected(closeCode: 1002, failFastAt: 2))
        add("7.3.3", "7 Close Handling", close(1000), Expected(closeCode: 1000))
        add("7.3.4", "7 Close Handling", close(1000, "Hello World!"), Expected(closeCode: 1000))
        add("7.3.5", "7 Close Handling", close(1000, String(repeating: "*", count: 123)), Expected(closeCode: 1000))
        add("7.3.6", "7 Close Handling", serverFrame(8, [0x03, 0xE8] + [UInt8](repeating: 0x2A, count: 124)), Expected(closeCode: 1002, failFastAt: 3))
        add("7.5.1", "7 Close Handling", serverFrame(8, [0x03, 0xE8] + bad), Expected(closeCode: 1007, failFastAt: 22))
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 3000, 3999, 4000, 4999] {
            add("7.7.\(code)", "7 Close Handling", close(code), Expected(closeCode: code))
        }
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            add("7.9.\(code)", "7 Close Handling", close(code), Expected(closeCode: 1002, failFastAt: 3))
        }
        // 9 Limits (Autobahn 9.x: large messages and many frames; with this client's limit)
        let big = [UInt8](repeating: 0x2A, count: 1 << 20)
        add("9.1.x", "9 Limits/Performance", serverFrame(2, big) + close(1000), Expected(messages: [.binary(Data(big))], closeCode: 1000), limit: 1 << 20)
        var chunked: [UInt8] = []
        for start in stride(from: 0, to: big.count, by: 4096) {
            let opcode: UInt8 = start == 0 ? 2 : 0
            chunked += serverFrame(opcode, Array(big[start..<(start + 4096)]), fin: start + 4096 == big.count)
        }
        add("9.2.x", "9 Limits/Performance", chunked + close(1000), Expected(messages: [.binary(Data(big))], closeCode: 1000), limit: 1 << 20)
        add("9.x over limit", "9 Limits/Performance", serverFrame(2, big + [0]), Expected(closeCode: 1009, failFastAt: 9), limit: 1 << 20)
        // 12/13 Compression
        let deflater = WebSocketDeflater(windowBits: 15, noContextTakeover: false)!
        var compressedInput: [UInt8] = []
        var messages: [WebSocketMessage] = []
        for size in [16, 64, 256, 1024, 4096, 65536, 131072] {
            let payload = String(repeating: "Hello, compression! ", count: size / 20 + 1)
            compressedInput += serverFrame(1, deflater.compress(Array(payload.utf8)), rsv: 0x40)
            messages.append(.text(payload))
        }
        add("12.1.x", "12/13 Compression", compressedInput + close(1000), Expected(messages: messages, closeCode: 1000), deflate: true)
        let bomb = WebSocketDeflater(windowBits: 15, noContextTakeover: true)!.compress([UInt8](repeating: 0, count: 8 << 20))
        add("13.x bomb", "12/13 Compression", serverFrame(2, bomb, rsv: 0x40), Expected(closeCode: 1009, failFastAt: serverFrame(2, bomb).count - 1), deflate: true)
        return all
    }()

    /// Runs a case; the verdict and, if not OK, why.
    static func run(_ testCase: Case) -> (Verdict, String) {
        func fresh() -> WebSocketConnectionMachine {
            WebSocketConnectionMachine(maximumMessageSize: testCase.limit, deflate: testCase.deflate ? PerMessageDeflateParameters() : nil)
        }
        var whole = fresh()
        let wholeEvents = whole.receive(testCase.input)
        var incremental = fresh()
        var byteEvents: [WebSocketConnectionMachine.Event] = []
        var failedAt: Int?
        let step = testCase.input.count > 200_000 ? 997 : 1
        for start in stride(from: 0, to: testCase.input.count, by: step) {
            let events = incremental.receive(Array(testCase.input[start..<min(start + step, testCase.input.count)]))
            if failedAt == nil, events.contains(where: { if case .failed = $0 { true } else { false } }) { failedAt = start + step - 1 }
            byteEvents += events
        }
        // Written frames carry fresh masking keys: compare them unmasked.
        func normalized(_ events: [WebSocketConnectionMachine.Event]) -> [String] {
            events.map { event in
                if let bytes = event.writtenBytes, let frame = decodeClientFrame(bytes) { return "write \(frame.opcode) \(frame.payload)" }
                if case .message(let message) = event { return "message \(WebSocketChannelState.size(of: message)) \(message.hashValue)" }
                return "\(event)"
            }
        }
        guard normalized(wholeEvents) == normalized(byteEvents) else { return (.failed, "one slice and byte by byte disagree") }
        let messages = wholeEvents.compactMap { if case .message(let m) = $0 { m } else { nil } }
        var pongs: [[UInt8]] = []
        var closeCode: UInt16?
        for bytes in wholeEvents.compactMap(\.writtenBytes) {
            guard let frame = decodeClientFrame(bytes) else { return (.failed, "an unmasked or malformed frame was written") }
            if frame.opcode == 10 { pongs.append(frame.payload) }
            if frame.opcode == 8, frame.payload.count >= 2 { closeCode = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) }
        }
        guard messages == testCase.expected.messages else { return (.failed, "messages \(messages.count) != \(testCase.expected.messages.count)") }
        guard pongs == testCase.expected.pongs else { return (.failed, "pongs \(pongs) != \(testCase.expected.pongs)") }
        guard closeCode == testCase.expected.closeCode else { return (.failed, "close code \(String(describing: closeCode)) != \(String(describing: testCase.expected.closeCode))") }
        if let failFast = testCase.expected.failFastAt, let failedAt, failedAt > failFast + step {
            return (.nonStrict, "failed at byte \(failedAt), could at \(failFast)")
        }
        return (.ok, "")
    }

    @Test func perCategoryReport() {
        var byCategory: [String: [Verdict: Int]] = [:]
        var notes: [String] = []
        for testCase in Self.cases {
            let (verdict, why) = Self.run(testCase)
            byCategory[testCase.category, default: [:]][verdict, default: 0] += 1
            if verdict != .ok { notes.append("\(testCase.id) \(verdict.rawValue): \(why)") }
            #expect(verdict != .failed, "\(testCase.id): \(why)")
        }
        var report = "WebSocket conformance (Autobahn-style, \(Self.cases.count) cases)\n"
        for category in byCategory.keys.sorted(by: { $0.localizedStandardCompare($1) == .orderedAscending }) {
            let counts = byCategory[category]!
            report += "  \(category.padding(toLength: 24, withPad: " ", startingAt: 0)) OK \(counts[.ok] ?? 0)  NON-STRICT \(counts[.nonStrict] ?? 0)  FAILED \(counts[.failed] ?? 0)\n"
        }
        for note in notes { report += "  \(note)\n" }
        print(report)
    }
}
