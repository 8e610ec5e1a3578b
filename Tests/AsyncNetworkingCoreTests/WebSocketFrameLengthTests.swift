@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

/// Rule: no frame length read from the wire traps, whatever ``WebSocketOptions/maximumMessageSize``
/// says — "no limit" (`Int.max`) included. A declared length the process could never hold (header
/// and payload past `Int.max` bytes) fails the connection with 1009; a 64-bit length with its top
/// bit set with 1002; a control frame over 125 bytes with 1002. Every front door (the manager, the
/// client), every frame kind (data, continuation, compressed, control) and every length form.
@Suite("WebSocket frame lengths from a hostile server", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketFrameLengthTests {
    static let noLimit = WebSocketOptions(maximumMessageSize: .max)

    /// The close code the client fails with after the server sends `/frame?query`.
    private static func closeCode(_ query: String, options: WebSocketOptions = noLimit, viaClient: Bool = false) async throws -> UInt16? {
        let server = try await startWebSocketServer { try WebSocketTestServer(script: HostileFrameServer.script) }
        defer { server.stop() }
        let manager = SessionManager(transport: .curl)
        return try await withDeadline {
            let url = server.url("/frame?\(query)")
            let socket = viaClient
                ? try await HTTPClient(manager: manager).webSocket(url, options: options)
                : try await manager.webSocket(to: url, options: options)
            let (messages, error) = await drain(socket)
            #expect(messages.isEmpty)
            guard case .webSocketFailed(let code)? = error?.kind else {
                Issue.record("expected a webSocketFailed error, got \(String(describing: error))")
                return nil
            }
            return code
        }
    }

    static let lengthCases: [(query: String, code: UInt16)] = [
        ("length=9223372036854775807", 1009), // 2^63 − 1: legal on the wire, more than memory can hold
        ("length=9223372036854775798", 1009), // 2^63 − 10: header + payload is one past Int.max
        ("length=9223372036854775808", 1002), // 2^63: the top bit must be clear
        ("length=18446744073709551615", 1002), // 2^64 − 1
        ("length=9223372036854775807&opcode=1", 1009),
        ("length=9223372036854775807&opcode=0&fragment=1", 1009), // a continuation
        ("length=9223372036854775807&opcode=9", 1002), // a ping longer than 125 bytes
        ("length=9223372036854775807&opcode=8", 1002), // a close frame
        ("length=126&opcode=10", 1002), // a pong over 125 bytes, 16-bit form
        ("length=65535&form=16&opcode=9", 1002),
    ]

    @Test(arguments: lengthCases)
    func aHugeDeclaredLengthFailsTheConnectionWithoutTrapping(query: String, code: UInt16) async throws {
        #expect(try await Self.closeCode(query) == code, "\(query)")
    }

    @Test func theClientFrontDoorFailsTheSameWay() async throws {
        #expect(try await Self.closeCode("length=9223372036854775807", viaClient: true) == 1009)
    }

    @Test func aCompressedFrameOfHugeLengthFailsTheSameWay() async throws {
        let options = WebSocketOptions(maximumMessageSize: .max, compression: .standard)
        #expect(try await Self.closeCode("length=9223372036854775807&rsv=4&deflate=1", options: options) == 1009)
    }

    @Test(arguments: [1, 1 << 20, 16 << 20, Int.max - 10, Int.max - 9, Int.max - 1])
    func everyLimitRefusesTheLongestLength(limit: Int) async throws {
        #expect(try await Self.closeCode("length=9223372036854775807", options: WebSocketOptions(maximumMessageSize: limit)) == 1009)
    }
}
