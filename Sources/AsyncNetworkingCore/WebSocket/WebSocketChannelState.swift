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

    /// Frame bytes waiting for the I/O thread (messages, our pings and close frames, in order),
    /// and those of them it took and has not written yet.
    var outbound: [UInt8] = []
    private(set) var inflightBytes = 0
    /// Bytes of admitted sends still being encoded (``admitSend(cost:)``): counted against
    /// ``WebSocketOptions/sendBufferSize`` until their frames are queued, so senders running at
    /// once cannot all pass the limit together.
    private(set) var reservedOutput = 0
    /// Pongs answering the peer's pings: a queue of their own, written ahead of ``outbound`` at the
    /// next frame boundary, and the reply bytes the I/O thread took and has not written yet. Past
    /// ``WebSocketOptions/sendBufferSize`` of them the I/O thread stops reading (``wantsInput``):
    /// a peer that pings and never reads is held back by TCP instead of growing this queue.
    private(set) var replies: [UInt8] = []
    private(set) var inflightReplyBytes = 0
    /// What the I/O thread took with ``takeOutput()``: all of it, and the replies at its front.
    private var takenCount = 0
    private var takenReplyBytes = 0
    /// Whole messages waiting for the reader (a queue read from `inboundHead`), and what they cost
    /// in memory (``cost(of:)``: payload bytes plus ``messageOverhead`` each).
    private var inbound: [WebSocketMessage] = []
    private var inboundHead = 0
    private(set) var inboundCost = 0
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

    /// Admits a send whose frame will cost about `cost` bytes: its ticket (the cost reserved until
    /// ``queueEncoded(_:reserved:)``), `nil` while the output is over
    /// ``WebSocketOptions/sendBufferSize`` (wait for room), or the error once closed.
    mutating func admitSend(cost: Int) -> Result<UInt64?, NetworkingError> {
        guard phase == .open, !isProtocolDone, machine?.state == .open else {
            return .failure(NetworkingError(.webSocketClosed, "the WebSocket is closed"))
        }
        guard bufferedOutput <= options.sendBufferSize else { return .success(nil) }
        reservedOutput += cost
        defer { nextSendTicket += 1 }
        return .success(nextSendTicket)
    }

    /// Queues an admitted send's encoded frame (`nil`: the sender was cancelled), releases its
    /// reservation and passes the send turn on. Fails when the connection closed meanwhile.
    mutating func queueEncoded(_ bytes: [UInt8]?, reserved cost: Int) -> (Result<Void, NetworkingError>, [WebSocketResumption]) {
        reservedOutput -= cost
        let outcome: Result<Void, NetworkingError>
        if let bytes {
            if phase == .open, !isProtocolDone, machine?.state == .open {
                outbound += bytes
                outcome = .success(())
            } else {
                outcome = .failure(NetworkingError(.webSocketClosed, "the WebSocket closed while the message was encoded; it was not sent"))
            }
        } else {
            outcome = .failure(NetworkingError(.cancelled, "the task sending on the WebSocket was cancelled"))
        }
        return (outcome, passSendTurn() + releaseSenders())
    }

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

    /// What one queued message costs beyond its payload bytes: its slot in the queue and the
    /// header of the storage holding its bytes. A flood of empty messages is bounded by this, not
    /// by their zero bytes.
    static let messageOverhead = 128

    /// Bytes queued for the socket by callers (messages, pings, close), taken or not, and those of
    /// admitted sends still being encoded. Replies to the peer's pings are not counted here
    /// (``replyBacklog``): a peer cannot hold the caller's sends up by pinging.
    var bufferedOutput: Int { outbound.count + inflightBytes + reservedOutput }

    /// Pong bytes queued or taken and not yet written.
    var replyBacklog: Int { replies.count + inflightReplyBytes }

    /// Messages waiting for the reader.
    var inboundCount: Int { inbound.count - inboundHead }

    /// Whether anything is queued for the I/O thread to take.
    var hasOutput: Bool { !outbound.isEmpty || !replies.isEmpty }

    /// Whether the I/O thread should read from the socket: while the reader's queue costs less than
    /// ``WebSocketOptions/receiveBufferSize`` and the pongs not yet written are under
    /// ``WebSocketOptions/sendBufferSize``. Otherwise it stops, and TCP holds the peer back.
    /// While closing it reads on regardless (and drops what the full queue cannot take; no pong is
    /// queued once our close frame is out), so the peer's close frame is seen.
    var wantsInput: Bool {
        guard end == nil else { return false }
        if closeDeadline != nil || readerDone { return true }
        return inboundCost < options.receiveBufferSize && replyBacklog < options.sendBufferSize
    }

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
                } else if readerDone || (closeDeadline != nil && inboundCost >= options.receiveBufferSize) {
                    continue // nobody will read it: a cancelled reader, or a full queue while closing
                } else {
                    inbound.append(message)
                    inboundCost += Self.cost(of: message)
                }
            case .pong(let payload):
                guard let index = pings.firstIndex(where: { $0.payload == payload }) else { continue }
                // A pong answers the ping it echoes and every earlier one (RFC 6455 §5.5.3).
                for ping in pings[...index] { resumptions.append { ping.continuation.resume(returning: .success(())) } }
                pings.removeSubrange(...index)
            case .write(let bytes):
                outbound += bytes
            case .reply(let bytes):
                replies += bytes
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
        replies = []
        inflightBytes = 0
        inflightReplyBytes = 0
        for closer in closers { resumptions.append { closer.resume() } }
        closers = []
        return resumptions
    }

    /// Takes everything queued for the socket: the pongs first (a frame boundary: control frames
    /// may go between messages), then the frames in their order. Senders waiting for room learn it.
    mutating func takeOutput() -> (bytes: [UInt8], resumptions: [WebSocketResumption]) {
        var bytes: [UInt8] = []
        let replyCount = replies.count
        if replyCount == 0 {
            swap(&bytes, &outbound)
        } else {
            swap(&bytes, &replies)
            bytes += outbound
            outbound = []
        }
        takenCount = bytes.count
        takenReplyBytes = replyCount
        inflightReplyBytes = replyCount
        inflightBytes = bytes.count - replyCount
        return (bytes, releaseSenders())
    }

    /// The I/O thread has written `offset` bytes of what it took last.
    mutating func wrote(upTo offset: Int) -> [WebSocketResumption] {
        inflightReplyBytes = max(0, takenReplyBytes - offset)
        inflightBytes = max(0, takenCount - offset - inflightReplyBytes)
        return releaseSenders()
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
            inboundCost -= Self.cost(of: message)
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

    /// What a queued message costs in memory: its payload bytes and ``messageOverhead``.
    static func cost(of message: WebSocketMessage) -> Int { size(of: message) + messageOverhead }

    /// A message's payload bytes.
    static func size(of message: WebSocketMessage) -> Int {
        switch message {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}
