import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The shared half of one WebSocket: its state under one lock, and the pipe that wakes its I/O
/// thread (``WebSocketCurlIO``) when a caller queued output, read a message from a full queue,
/// or started to close.
final class WebSocketChannel: Sendable {
    let state: SanitizedMutex<WebSocketChannelState>
    /// The pipe's read end (polled by the I/O thread) and write end (written by callers).
    let wakeRead: Int32
    let wakeWrite: Int32

    init(options: WebSocketOptions) throws(NetworkingError) {
        state = SanitizedMutex(WebSocketChannelState(options: options))
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw NetworkingError(.transport(.resourceUnavailable), "cannot create a pipe: errno \(errno)")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    /// Wakes the I/O thread (a byte on the pipe; a full pipe already wakes it).
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Runs `body` under the lock, then the continuations it returned.
    func update(_ body: (inout WebSocketChannelState) -> [WebSocketResumption]) {
        let resumptions = state.withLock { body(&$0) }
        for resume in resumptions { resume() }
    }

    // MARK: caller operations

    /// The next message; suspends while none is queued. Cancellation throws `.cancelled` and
    /// starts the close handshake with 1001.
    func nextMessage() async throws(NetworkingError) -> WebSocketMessage? {
        let (immediate, resumesInput): (WebSocketChannelState.MessageResult?, Bool) = state.withLock { state in
            if state.reader != nil {
                return (.failure(NetworkingError(.unsupportedOperation, "a WebSocket's messages are read by one task at a time")), false)
            }
            let result = state.takeMessage()
            return (result, state.readPaused && state.wantsInput)
        }
        if resumesInput { wake() }
        if let immediate { return try immediate.get() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketChannelState.MessageResult, Never>) in
                let resumptions: [WebSocketResumption] = state.withLock { state in
                    if Task.isCancelled { return [{ continuation.resume(returning: .failure(NetworkingError(.cancelled, "the task reading the WebSocket was cancelled"))) }] }
                    if let result = state.takeMessage() { return [{ continuation.resume(returning: result) }] }
                    state.reader = continuation
                    return []
                }
                for resume in resumptions { resume() }
            }
        } onCancel: {
            update { $0.cancelReader() }
            wake()
        }
        if case .failure(let error) = result, error.kind == .cancelled {
            update { $0.cancelReader() }
            wake()
        }
        return try result.get()
    }

    /// Queues a message's frame; suspends first while the output is over its limit.
    ///
    /// The frame is encoded (deflated, masked) outside the channel's lock, so a large message
    /// holds up neither the I/O thread nor the reader: the message takes a send ticket under the
    /// lock, waits for its turn (the messages before it being encoded — bounded work, so this
    /// wait is not cancellable), encodes, then queues its frame and passes the turn on under the
    /// lock. Frames are therefore queued in ticket order: one task's messages in the order it
    /// sent them, and the compressor's context follows the wire order.
    func send(_ message: WebSocketMessage) async throws(NetworkingError) {
        var ticket: UInt64 = 0
        // Reserved against the send limit from the ticket on (a frame header is at most 14 bytes).
        let cost = WebSocketChannelState.size(of: message) + 14
        while true {
            if Task.isCancelled { throw NetworkingError(.cancelled, "the task sending on the WebSocket was cancelled") }
            let taken = state.withLock { $0.admitSend(cost: cost) }
            if let taken = try taken.get() {
                ticket = taken
                break
            }
            try await waitForRoom()
        }
        if !state.withLock({ $0.sendTurn == ticket }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now: Bool = state.withLock { state in
                    if state.sendTurn == ticket { return true }
                    state.turnWaiters[ticket] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        }
        // This sender holds the turn: it alone uses the compressor until it passes the turn.
        let deflater = state.withLock { $0.machine?.messageDeflater }
        let cancelled = Task.isCancelled
        let bytes = cancelled ? nil : WebSocketConnectionMachine.encode(message, deflater: deflater)
        var outcome: Result<Void, NetworkingError> = .success(())
        update { state in
            let (result, resumptions) = state.queueEncoded(bytes, reserved: cost)
            outcome = result
            return resumptions
        }
        try outcome.get()
        wake()
    }

    private func waitForRoom() async throws(NetworkingError) {
        let id = state.withLock { $0.makeID() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketChannelState.VoidResult, Never>) in
                let resumptions: [WebSocketResumption] = state.withLock { state in
                    if Task.isCancelled { return [{ continuation.resume(returning: .failure(NetworkingError(.cancelled, "the send was cancelled"))) }] }
                    state.senders.append((id, continuation))
                    return state.releaseSenders()
                }
                for resume in resumptions { resume() }
            }
        } onCancel: {
            update { state in
                guard let index = state.senders.firstIndex(where: { $0.id == id }) else { return [] }
                let sender = state.senders.remove(at: index)
                return [{ sender.continuation.resume(returning: .failure(NetworkingError(.cancelled, "the send was cancelled"))) }]
            }
        }
        try result.get()
    }

    /// Sends a ping and suspends until its pong (or a later one) arrives.
    func ping() async throws(NetworkingError) {
        let id = state.withLock { $0.makeID() }
        let payload = withUnsafeBytes(of: id.bigEndian) { Array($0) }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketChannelState.VoidResult, Never>) in
                let resumptions: [WebSocketResumption] = state.withLock { state in
                    if Task.isCancelled { return [{ continuation.resume(returning: .failure(NetworkingError(.cancelled, "the ping was cancelled"))) }] }
                    guard state.phase == .open, !state.isProtocolDone, let frame = state.machine?.encodePing(payload) else {
                        return [{ continuation.resume(returning: .failure(NetworkingError(.webSocketClosed, "the WebSocket is closed"))) }]
                    }
                    state.outbound += frame
                    state.pings.append((id, payload, continuation))
                    return []
                }
                wake()
                for resume in resumptions { resume() }
            }
        } onCancel: {
            update { state in
                guard let index = state.pings.firstIndex(where: { $0.id == id }) else { return [] }
                let ping = state.pings.remove(at: index)
                return [{ ping.continuation.resume(returning: .failure(NetworkingError(.cancelled, "the ping was cancelled"))) }]
            }
        }
        try result.get()
    }

    /// Starts the close handshake (if not started) and suspends until the connection is closed.
    func close(code: WebSocketCloseCode, reason: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done: Bool = state.withLock { state in
                state.startClose(code: code, reason: reason)
                if state.phase == .finished { return true }
                state.closers.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wake() }
        }
    }

    /// The WebSocket object was released without closing: close with 1001, nobody waits.
    func abandon() {
        state.withLock { $0.startClose(code: .goingAway, reason: "") }
        wake()
    }
}
