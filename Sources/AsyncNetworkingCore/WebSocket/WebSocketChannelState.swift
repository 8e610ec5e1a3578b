import Foundation

/// A continuation to resume once the channel's lock is released.
typealias WebSocketResumption = @Sendable () -> Void

/// Everything one WebSocket's callers and its I/O thread share, kept under the channel's one
/// ``SanitizedMutex``: the protocol machine, the queues in both directions, the waiting callers
/// and how the connection ended. Its methods run under that lock and never block; they return
/// the continuations to resume after it is released.
struct WebSocketChannelState: Sendable {
    typealias MessageResult = Result<WebSocketMessage?, NetworkingError>
    typealias VoidResult = Result<Void, NetworkingError>

    enum Phase: Sendable, Hashable { case connecting, open, finished }

    /// How the protocol side ended: a completed close handshake, or a failure.
    enum End: Sendable {
        case closed
        case failed(NetworkingError)
    }

    var phase = Phase.connecting
    /// What the opening handshake negotiated, once it is done.
    var handshake: WebSocketHandshake.Outcome?
    var machine: WebSocketConnectionMachine?
    let options: WebSocketOptions

    /// Frame bytes waiting for the I/O thread, and bytes it took and has not written yet.
    var outbound: [UInt8] = []
    var inflightBytes = 0
    /// Whole messages waiting for the reader (a queue read from `inboundHead`).
    private var inbound: [WebSocketMessage] = []
    private var inboundHead = 0
    private(set) var inboundBytes = 0
    /// Set by the I/O thread when it stopped reading because the reader is behind.
    var readPaused = false

    var reader: CheckedContinuation<MessageResult, Never>?
    private var readerDone = false
    var senders: [(id: UInt64, continuation: CheckedContinuation<VoidResult, Never>)] = []
    var pings: [(id: UInt64, payload: [UInt8], continuation: CheckedContinuation<VoidResult, Never>)] = []
    var closers: [CheckedContinuation<Void, Never>] = []
    var opener: CheckedContinuation<VoidResult, Never>?
    /// Send turns: each message takes a ticket under the lock, and is encoded (deflated, masked)
    /// outside it once ``sendTurn`` reaches its ticket, then queued and the turn passed on — so
    /// frames are queued in ticket order and the compressor is used by one sender at a time.
    var nextSendTicket: UInt64 = 0
    var sendTurn: UInt64 = 0
    var turnWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]

    /// Passes the send turn to the next ticket; the waiter to resume, if it is waiting.
    mutating func passSendTurn() -> [WebSocketResumption] {
        sendTurn += 1
        guard let waiter = turnWaiters.removeValue(forKey: sendTurn) else { return [] }
        return [{ waiter.resume() }]
    }

    /// The I/O thread's wait for the policy's ``ServerTrustEvaluator`` (wss), ended at once as
    /// cancelled when the connecting task is cancelled.
    var trustWait: CurlTrustWait?

    private(set) var end: End?
    /// When the I/O thread gives up waiting for the peer's close frame.
    var closeDeadline: ContinuousClock.Instant?
    var peerCloseCode: WebSocketCloseCode?
    var peerCloseReason: String?
    private var nextID: UInt64 = 0

    init(options: WebSocketOptions) { self.options = options }

    mutating func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// Bytes queued for the socket, taken or not.
    var bufferedOutput: Int { outbound.count + inflightBytes }

    /// Whether the I/O thread should read from the socket.
    /// While closing it reads on regardless (and drops what the full queue cannot take), so the
    /// peer's close frame is seen.
    var wantsInput: Bool { end == nil && (inboundBytes < options.receiveBufferSize || closeDeadline != nil || readerDone) }

    /// Whether the I/O thread should close the transport once its output is flushed.
    var isProtocolDone: Bool { end != nil }

    // MARK: from the I/O thread

    /// Applies what received bytes produced.
    mutating func apply(_ events: [WebSocketConnectionMachine.Event]) -> [WebSocketResumption] {
        var resumptions: [WebSocketResumption] = []
        for event in events {
            switch event {
            case .message(let message):
                if let reader {
                    self.reader = nil
                    resumptions.append { reader.resume(returning: .success(message)) }
                } else if readerDone || (closeDeadline != nil && inboundBytes >= options.receiveBufferSize) {
                    continue // nobody will read it: a cancelled reader, or a full queue while closing
                } else {
                    inbound.append(message)
                    inboundBytes += Self.size(of: message)
                }
            case .pong(let payload):
                guard let index = pings.firstIndex(where: { $0.payload == payload }) else { continue }
                // A pong answers the ping it echoes and every earlier one (RFC 6455 §5.5.3).
                for ping in pings[...index] { resumptions.append { ping.continuation.resume(returning: .success(())) } }
                pings.removeSubrange(...index)
            case .write(let bytes):
                outbound += bytes
            case .peerClosed(let code, let reason):
                peerCloseCode = code ?? .noStatusReceived
                peerCloseReason = reason
            case .closeHandshakeComplete:
                resumptions += finishProtocol(.closed)
            case .failed(let error):
                let failure = NetworkingError(.webSocketFailed(closeCode: error.code.rawValue), "the WebSocket failed: \(error.reason) (closed with \(error.code))")
                resumptions += finishProtocol(.failed(failure))
            }
        }
        return resumptions
    }

    /// Ends the protocol side: the reader (once the queue is empty), senders and pings learn it.
    mutating func finishProtocol(_ ending: End) -> [WebSocketResumption] {
        guard end == nil else { return [] }
        end = ending
        machine?.abort()
        var resumptions: [WebSocketResumption] = []
        let error: NetworkingError = switch ending {
        case .closed: NetworkingError(.webSocketClosed, "the WebSocket is closed")
        case .failed(let failure): failure
        }
        for sender in senders { resumptions.append { sender.continuation.resume(returning: .failure(error)) } }
        senders = []
        for ping in pings { resumptions.append { ping.continuation.resume(returning: .failure(error)) } }
        pings = []
        if let reader, inboundHead == inbound.count, let result = takeMessage() {
            self.reader = nil
            resumptions.append { reader.resume(returning: result) }
        }
        if let opener {
            self.opener = nil
            resumptions.append { opener.resume(returning: .failure(error)) }
        }
        return resumptions
    }

    /// The I/O thread is gone (the connection is closed): everything still waiting is answered.
    mutating func finishTransport(_ error: NetworkingError?) -> [WebSocketResumption] {
        var resumptions = finishProtocol(.failed(error ?? NetworkingError(.transport(.networkConnectionLost), "the WebSocket connection was lost")))
        phase = .finished
        outbound = []
        inflightBytes = 0
        for closer in closers { resumptions.append { closer.resume() } }
        closers = []
        return resumptions
    }

    /// Resumes senders once the output is below its limit (they then queue their message).
    mutating func releaseSenders() -> [WebSocketResumption] {
        guard !senders.isEmpty, bufferedOutput <= options.sendBufferSize else { return [] }
        let waiting = senders
        senders = []
        return waiting.map { sender in { sender.continuation.resume(returning: .success(())) } }
    }

    // MARK: from callers

    /// The next message, the end (`nil`) or the failure; `nil` (no result) when the reader must wait.
    mutating func takeMessage() -> MessageResult? {
        if readerDone { return .success(nil) }
        if inboundHead < inbound.count {
            let message = inbound[inboundHead]
            inboundHead += 1
            inboundBytes -= Self.size(of: message)
            if inboundHead == inbound.count {
                inbound.removeAll(keepingCapacity: true)
                inboundHead = 0
            } else if inboundHead > 64, inboundHead * 2 > inbound.count {
                inbound.removeSubrange(0..<inboundHead)
                inboundHead = 0
            }
            return .success(message)
        }
        guard let end else { return nil }
        readerDone = true
        switch end {
        case .closed: return .success(nil)
        case .failed(let error): return .failure(error)
        }
    }

    /// The reader's task was cancelled: it gets `.cancelled` and the connection starts closing (1001).
    mutating func cancelReader() -> [WebSocketResumption] {
        var resumptions: [WebSocketResumption] = []
        if let reader {
            self.reader = nil
            resumptions.append { reader.resume(returning: .failure(NetworkingError(.cancelled, "the task reading the WebSocket was cancelled"))) }
        }
        readerDone = true
        startClose(code: .goingAway, reason: "")
        return resumptions
    }

    /// Queues our close frame (once) and arms the close timeout.
    mutating func startClose(code: WebSocketCloseCode, reason: String) {
        guard phase == .open, let frame = machine?.startClose(code: code, reason: reason) else {
            if phase == .connecting { phase = .finished }
            return
        }
        outbound += frame
        closeDeadline = .now + options.closeTimeout
    }

    static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
