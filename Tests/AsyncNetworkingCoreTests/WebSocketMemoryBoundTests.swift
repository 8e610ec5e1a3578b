@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

/// Runs `body` with a ``WebSocketHostilePeer`` and a curl manager, under a hang deadline.
func withHostileWebSocketPeer<T: Sendable>(
    deadline: Double = 2 * hangDeadline, _ body: @escaping @Sendable (WebSocketTestServer, SessionManager) async throws -> T
) async throws -> T {
    let server = try await startWebSocketServer { try WebSocketTestServer(script: WebSocketHostilePeer.script) }
    defer { server.stop() }
    let manager = SessionManager(transport: .curl)
    return try await withDeadline(deadline) { try await body(server, manager) }
}

/// The rule: every queue a WebSocket holds — the reader's messages, the caller's frames, the pongs
/// owed to the peer — is bounded by what it costs in memory (messages and their per-message
/// overhead, not only payload bytes); past its bound the client stops reading the socket, so TCP
/// holds the peer back, or the sender waits. Each queue is flooded with its smallest and its
/// largest units by a peer that behaves as an attacker would.
@Suite("WebSocket queues are bounded by their cost", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketMemoryBoundTests {
    /// The most pong bytes one read of the socket can queue: a read is at most
    /// ``WebSocketCurlIO/readChunk`` bytes, and a ping of 2 bytes on the wire is answered by a
    /// pong of 6 (masked).
    static let repliesPerRead = 3 * WebSocketCurlIO.readChunk

    /// A peer that pings without end and never reads: the pongs it is owed wait in their own
    /// queue, and once that queue passes its bound the client stops reading, so the flood waits in
    /// TCP. Before, every ping queued a pong: the queue grew with the flood (3 bytes of pong per
    /// byte of empty ping).
    @Test(arguments: [(size: 0, count: 4_000_000), (size: 125, count: 200_000)])
    func aPingFloodFromAPeerThatNeverReadsStopsTheReading(size: Int, count: Int) async throws {
        try await withHostileWebSocketPeer { server, manager in
            let options = WebSocketOptions(sendBufferSize: 64 << 10, closeTimeout: .milliseconds(200))
            let socket = try await manager.webSocket(to: server.url("/ping-flood?count=\(count)&size=\(size)"), options: options)
            // Either the client stops reading (bounded), or it reads the whole flood and its `done`.
            let state = socket.channel.state
            #expect(await eventually { state.withLock { $0.readPaused || $0.inboundCount > 0 } })
            // The kernel's send buffer may still grow (TCP autotuning) and take more pongs, so the
            // reading can resume for a while before the buffers are full for good (one snapshot
            // right after the first stop was not always stopped in CI): wait for the stop.
            #expect(await eventually { state.withLock { $0.readPaused } }, "the client never stopped reading")
            let (backlog, queued) = state.withLock { ($0.replyBacklog, $0.inboundCount) }
            #expect(queued == 0, "the client read the whole flood")
            #expect(backlog <= options.sendBufferSize + Self.repliesPerRead, "\(backlog) bytes of pongs queued")
            // It stays stopped: the peer reads nothing, so no pong leaves and nothing more is read.
            try await Task.sleep(for: .milliseconds(200))
            #expect(state.withLock { $0.replyBacklog } <= options.sendBufferSize + Self.repliesPerRead)
            #expect(state.withLock { $0.inboundCount } == 0)
            try? await socket.close() // the peer never reads our close: the close timeout ends it
        }
    }

    /// A peer that sends many tiny messages (empty, one byte, a hundred bytes) to a reader that
    /// waits: each queued message costs its payload plus ``WebSocketChannelState/messageOverhead``,
    /// so the queue stops at ``WebSocketOptions/receiveBufferSize`` of cost and the client stops
    /// reading. Before, only payload bytes counted: a flood of empty messages was never "full" and
    /// every message was queued. Reading then gets every message, in order, and the `done` after them.
    @Test(arguments: [(size: 0, opcode: 1, count: 1_000_000), (size: 1, opcode: 2, count: 300_000), (size: 100, opcode: 2, count: 60_000)])
    func aFloodOfTinyMessagesIsBoundedByTheirCost(size: Int, opcode: Int, count: Int) async throws {
        try await withHostileWebSocketPeer { server, manager in
            let options = WebSocketOptions(receiveBufferSize: 1 << 20)
            let socket = try await manager.webSocket(to: server.url("/message-flood?count=\(count)&size=\(size)&opcode=\(opcode)"), options: options)
            let state = socket.channel.state
            #expect(await eventually { state.withLock { $0.readPaused || $0.inboundCount > count } })
            let (paused, queued, cost) = state.withLock { ($0.readPaused, $0.inboundCount, $0.inboundCost) }
            #expect(paused, "the client never stopped reading")
            #expect(queued < count, "the whole flood was queued: \(queued) messages")
            // One read can add at most readChunk / 2 messages (2 bytes each on the wire) past the bound.
            let perRead = WebSocketCurlIO.readChunk / max(2, size + 2) * (size + WebSocketChannelState.messageOverhead)
            #expect(cost <= options.receiveBufferSize + perRead, "queued cost \(cost)")
            // The accounting covers at least what the queue really holds: a slot per message and its bytes.
            #expect(cost >= queued * (MemoryLayout<WebSocketMessage>.stride + size))
            var iterator = socket.messages.makeAsyncIterator()
            for index in 0..<count {
                let message = try await iterator.next()
                let expected: WebSocketMessage = opcode == 1
                    ? .text(String(repeating: Character(Unicode.Scalar(UInt8(index & 0xFF))), count: size))
                    : .binary(Data(repeating: UInt8(index & 0xFF), count: size))
                if message != expected {
                    Issue.record("message \(index): \(String(describing: message))")
                    break
                }
            }
            #expect(try await iterator.next() == .text("done"))
            try await socket.close()
        }
    }

    /// The caller's queue of frames, with the smallest unit (an empty message, 6 bytes of frame) and
    /// a large one, towards a peer that reads nothing: `send` suspends once the frames waiting for
    /// the socket pass ``WebSocketOptions/sendBufferSize``, so they stay within it plus one message.
    @Test(arguments: [0, 200 << 10])
    func sendsToAPeerThatNeverReadsStopAtTheSendBound(size: Int) async throws {
        try await withHostileWebSocketPeer { server, manager in
            let options = WebSocketOptions(sendBufferSize: 64 << 10, closeTimeout: .milliseconds(200))
            let socket = try await manager.webSocket(to: server.url("/ping-flood?count=0"), options: options)
            let message = WebSocketMessage.binary(Data(repeating: 5, count: size))
            let sender = Task {
                do {
                    while true { try await socket.send(message) }
                } catch {
                    return error as? NetworkingError
                }
            }
            #expect(await eventually { socket.channel.state.withLock { !$0.senders.isEmpty } })
            #expect(socket.channel.state.withLock { $0.bufferedOutput } <= options.sendBufferSize + size + 14)
            sender.cancel()
            #expect(await sender.value?.kind == .cancelled)
            try? await socket.close()
        }
    }

    /// Many tasks sending at once to a peer that reads nothing: each send reserves its frame's size
    /// when it is admitted, so together they stay within ``WebSocketOptions/sendBufferSize`` plus
    /// one message. Before, every sender that found the queue under the limit was admitted before
    /// any of them had queued its frame: while a large message was being compressed, 160 senders
    /// were admitted behind it, and all their frames were queued.
    @Test func concurrentSendersShareTheSendBound() async throws {
        try await withWebSocketServer { server, manager in
            let options = WebSocketOptions(sendBufferSize: 64 << 10, compression: .standard, closeTimeout: .milliseconds(200))
            let socket = try await manager.webSocket(to: server.url("/stall?seconds=600"), options: options)
            #expect(!socket.negotiatedExtensions.isEmpty)
            // Random bytes: slow to deflate, and they do not shrink.
            let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: (8 << 20) + (64 << 10)))
            let large = random.prefix(8 << 20)
            let small = WebSocketMessage.binary(random.suffix(64 << 10))
            let finished = SanitizedMutex(0)
            let state = socket.channel.state
            let first = Task {
                defer { finished.withLock { $0 += 1 } }
                try await socket.send(.binary(large))
            }
            // The large send holds its ticket while it is compressed; the others start meanwhile.
            #expect(await eventually { state.withLock { $0.nextSendTicket >= 1 } })
            let senders = [first] + (0..<160).map { _ in
                Task {
                    defer { finished.withLock { $0 += 1 } }
                    try await socket.send(small)
                }
            }
            // Every sender has either queued its frame or is parked waiting for room.
            #expect(await eventually { state.withLock { $0.senders.count } + finished.withLock { $0 } == senders.count })
            #expect(state.withLock { $0.bufferedOutput } <= options.sendBufferSize + large.count + (large.count >> 10) + 14)
            for sender in senders { sender.cancel() }
            try? await socket.close()
        }
    }
}

/// The same bounds on the pure channel state, without I/O.
@Suite("WebSocket channel state bounds")
struct WebSocketChannelStateBoundTests {
    private func openState(_ options: WebSocketOptions) -> WebSocketChannelState {
        var state = WebSocketChannelState(options: options)
        state.phase = .open
        state.machine = WebSocketConnectionMachine(maximumMessageSize: options.maximumMessageSize)
        return state
    }

    @Test func admittedSendsReserveTheirCost() {
        var state = openState(WebSocketOptions(sendBufferSize: 1000))
        let admitted = (0..<10).compactMap { _ in try? state.admitSend(cost: 800).get() }
        #expect(admitted == [0, 1]) // the second found 800 ≤ 1000; the third found 1600
        #expect(state.bufferedOutput == 1600)
        let (queued, _) = state.queueEncoded(Array(repeating: 1, count: 700), reserved: 800)
        #expect((try? queued.get()) != nil)
        #expect(state.bufferedOutput == 1500)
        let (cancelled, _) = state.queueEncoded(nil, reserved: 800)
        #expect((try? cancelled.get()) == nil)
        #expect(state.bufferedOutput == 700)
    }

    @Test func pongsAreQueuedApartAndStopTheReadingPastTheirBound() {
        var state = openState(WebSocketOptions(sendBufferSize: 100))
        var machine = state.machine!
        let ping = serverFrame(9, Array(repeating: 7, count: 20))
        _ = state.apply(machine.receive(ping + ping + ping)) // 3 pongs of 26 bytes
        state.machine = machine
        #expect(state.replyBacklog == 78)
        #expect(state.wantsInput)
        _ = state.apply(machine.receive(ping))
        #expect(state.replyBacklog == 104)
        #expect(!state.wantsInput)
        state.outbound = [1, 2, 3] // a message queued before: the pongs go ahead of it
        let (bytes, _) = state.takeOutput()
        #expect(bytes.count == 107 && Array(bytes.suffix(3)) == [1, 2, 3])
        #expect(decodeClientFrame(Array(bytes[0..<26]))?.opcode == 10)
        #expect(state.replyBacklog == 104 && state.bufferedOutput == 3)
        _ = state.wrote(upTo: 60)
        #expect(state.replyBacklog == 44 && state.bufferedOutput == 3)
        #expect(state.wantsInput)
        _ = state.wrote(upTo: 105)
        #expect(state.replyBacklog == 0 && state.bufferedOutput == 2)
    }

    @Test func queuedMessagesCostTheirOverhead() {
        var state = openState(WebSocketOptions(receiveBufferSize: 10 * WebSocketChannelState.messageOverhead))
        var machine = state.machine!
        let empty = serverFrame(1, [])
        _ = state.apply(machine.receive(Array(repeating: empty, count: 9).flatMap { $0 }))
        #expect(state.inboundCount == 9 && state.wantsInput)
        _ = state.apply(machine.receive(empty))
        #expect(state.inboundCost == 10 * WebSocketChannelState.messageOverhead)
        #expect(!state.wantsInput)
        _ = state.takeMessage()
        #expect(state.wantsInput)
    }
}

/// The process's resident memory under the floods above, scaled up: not a unit test (RSS counts
/// every test running beside it), so it runs only with `ASYNCNETWORKING_MEMORY_CHECK=1`, one test
/// per process:
///
///     for t in pingFlood tinyMessageFlood; do
///       ASYNCNETWORKING_MEMORY_CHECK=1 swift test --skip-build --filter "WebSocketMemoryCheck/$t" | grep MEMORY
///     done
@Suite("WebSocket memory check", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["ASYNCNETWORKING_MEMORY_CHECK"] == "1" && WebSocketTestServer.python != nil))
struct WebSocketMemoryCheck {
    /// Runs `path` on the hostile peer until the client stops reading or has taken the whole
    /// flood (`done` queued after `messages` messages), and checks the RSS growth against `limit`.
    static func flood(_ path: String, messages: Int, wire: Int, limit: Int) async throws {
        try await withHostileWebSocketPeer(deadline: 4 * hangDeadline) { server, manager in
            let before = SoakTests.residentBytes()
            let socket = try await manager.webSocket(to: server.url(path), options: WebSocketOptions(closeTimeout: .milliseconds(200)))
            let state = socket.channel.state
            #expect(await eventually(3 * hangDeadline) { state.withLock { $0.readPaused || $0.inboundCount > messages } })
            try await Task.sleep(for: .milliseconds(500)) // a paused client stays paused
            let growth = SoakTests.residentBytes() - before
            print("MEMORY \(path): RSS grew \(growth >> 20) MiB for a flood of \(wire >> 20) MiB on the wire")
            #expect(growth < limit, "RSS grew \(growth >> 20) MiB")
            try? await socket.close()
        }
    }

    /// 8 Mi empty pings (16 MiB on the wire, 48 MiB of pongs if every one were queued).
    @Test func pingFlood() async throws {
        try await Self.flood("/ping-flood?count=\(8 << 20)&size=0", messages: 0, wire: 16 << 20, limit: 16 << 20)
    }

    /// 8 Mi empty messages (16 MiB on the wire, about 200 MiB if every one were queued).
    @Test func tinyMessageFlood() async throws {
        try await Self.flood("/message-flood?count=\(8 << 20)&size=0&opcode=1", messages: 8 << 20, wire: 16 << 20, limit: 16 << 20)
    }
}
