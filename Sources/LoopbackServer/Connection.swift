#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why handling a request stopped early.
enum ConnectionError: Error {
    /// The client closed or reset the connection.
    case peerClosed
    /// `stop()` began.
    case stopped
    /// The request is malformed; answer 400 with this reason if nothing was sent yet, then close.
    case badRequest(String)
}

/// How a connection ends after the current request.
enum Disposition {
    /// Keep serving if the request and response allow keep-alive.
    case normal
    /// Close now with FIN, without draining: the response was cut short on purpose.
    case closeAbruptly
    /// Close now with RST (`SO_LINGER` {1, 0}).
    case reset
}

/// One accepted connection, served on its own thread. Not shared: only that thread touches it.
final class Connection {
    let fd: Int32
    let id: Int
    let core: ServerCore

    /// Received bytes not yet consumed live in `input[readIndex..<writeIndex]`.
    var input: [UInt8]
    var readIndex = 0
    var writeIndex = 0

    /// Response bytes waiting to be sent together (head + small body).
    var output: [UInt8] = []
    /// A reusable buffer for generated bodies (seeded bytes).
    var scratch: [UInt8] = []

    // Per-request state.
    var request: RequestHead
    var body = BodyState()
    var response = ResponseState()
    var keepAlive = true
    var disposition = Disposition.normal
    var recorded = false

    static let bufferSize = 64 * 1024

    init(fd: Int32, id: Int, core: ServerCore) {
        self.fd = fd
        self.id = id
        self.core = core
        self.input = [UInt8](repeating: 0, count: Self.bufferSize)
        self.request = RequestHead(
            method: "", target: "", path: "/", rawQuery: nil, queryItems: [], version: (1, 1), headers: [], bodyFraming: .none
        )
        output.reserveCapacity(Self.bufferSize)
    }

    /// Serves requests until the client leaves, keep-alive ends, a fault route closes, or `stop()`.
    func serve() {
        var reset = false
        defer { core.closeConnection(fd, reset: reset) }
        while !core.isStopping {
            let head: RequestHead
            do {
                guard let parsed = try readHead() else { return }
                head = parsed
            } catch ConnectionError.badRequest(let reason) {
                rejectMalformedHead(reason)
                return
            } catch {
                return
            }
            guard handle(head) else {
                reset = disposition == .reset
                if disposition == .normal { lingeringClose() }
                return
            }
        }
    }

    /// Handles one request; returns whether the connection may serve another.
    private func handle(_ head: RequestHead) -> Bool {
        request = head
        body = BodyState(framing: head.bodyFraming)
        response = ResponseState()
        keepAlive = head.keepAlive
        disposition = .normal
        recorded = false
        core.requestStarted()
        do {
            if head.expectsContinue && head.isHTTP11 && head.bodyFraming != .none {
                try sendRaw("HTTP/1.1 100 Continue\r\n\r\n")
            }
            try Router.route(self)
            if response.started && !response.complete && disposition == .normal {
                try finishBody()
            }
            try flush()
        } catch let error as ConnectionError {
            record() // a request the client abandoned (or that was malformed) is still logged
            if case .badRequest(let reason) = error, !response.started, !core.isStopping {
                body.done = true // abandon the malformed body; the connection closes after the 400
                keepAlive = false
                do {
                    try respond(400, [("Content-Type", "text/plain; charset=utf-8")], text: "bad request: \(reason)\n")
                    return false // a complete response, already counted
                } catch {
                    // Could not send it: account for it below like any failed response.
                }
            }
            let abort: Bool
            if case .peerClosed = error { abort = !core.isStopping } else { abort = false }
            if response.complete {
                core.completedResponseFailed(clientAbort: abort)
            } else {
                core.requestEnded(clientAbort: abort)
            }
            disposition = .closeAbruptly
            return false
        } catch {
            record()
            core.requestEnded(clientAbort: false)
            disposition = .closeAbruptly
            return false
        }
        if !response.complete { core.requestEnded(clientAbort: false) }
        return disposition == .normal && keepAlive && response.complete
    }

    /// Answers a head that cannot be parsed with 400 and `Connection: close`.
    private func rejectMalformedHead(_ reason: String) {
        let text = "bad request: \(reason)\n"
        let head = "HTTP/1.1 400 Bad Request\r\nServer: LoopbackServer\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n"
        try? sendRaw(head + text)
        lingeringClose()
    }

    /// Reads until a whole request head is buffered; `nil` when the client closes between requests.
    private func readHead() throws -> RequestHead? {
        while true {
            if readIndex < writeIndex {
                let result = input.withUnsafeBytes { raw in
                    HTTPParser.parseHead(UnsafeRawBufferPointer(rebasing: raw[readIndex..<writeIndex]))
                }
                switch result {
                case .complete(let head, let consumed):
                    readIndex += consumed
                    return head
                case .invalid(let reason):
                    throw ConnectionError.badRequest(reason)
                case .incomplete:
                    if writeIndex - readIndex >= HTTPParser.maxHeadSize {
                        throw ConnectionError.badRequest("request head larger than \(HTTPParser.maxHeadSize) bytes")
                    }
                }
            }
            if try fill() == 0 { return nil }
        }
    }

    /// Receives more bytes into the input buffer; returns 0 at end of stream. The buffer holds
    /// 64 KiB (also the head size limit); callers consume what is buffered before filling again.
    func fill() throws -> Int {
        if readIndex == writeIndex {
            readIndex = 0
            writeIndex = 0
        } else if writeIndex == input.count {
            if readIndex > 0 {
                let pending = writeIndex - readIndex
                input.withUnsafeMutableBytes { raw in
                    raw.baseAddress!.copyMemory(from: raw.baseAddress! + readIndex, byteCount: pending)
                }
                readIndex = 0
                writeIndex = pending
            } else {
                return writeIndex - readIndex // full; the caller consumes first
            }
        }
        let start = writeIndex
        let received = input.withUnsafeMutableBytes { raw in
            Socket.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[start...]))
        }
        writeIndex += received
        return received
    }

    /// After a final response on a connection that is closing: stop sending, then read and
    /// discard what the client still sends (briefly), so closing does not turn into an RST that
    /// could destroy the response before the client reads it.
    private func lingeringClose() {
        _ = shutdown(fd, Int32(SHUT_WR))
        var fds = [
            pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
            pollfd(fd: core.wakeFD, events: Int16(POLLIN), revents: 0),
        ]
        var discard = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<64 {
            fds[0].revents = 0
            fds[1].revents = 0
            guard Socket.poll(&fds, timeout: 200) > 0, fds[1].revents == 0 else { return }
            let received = discard.withUnsafeMutableBytes { Socket.receive(fd, into: $0) }
            if received == 0 { return }
        }
    }

    /// Sleeps `milliseconds`, watching the socket: throws ``ConnectionError/peerClosed`` as soon
    /// as the client goes away and ``ConnectionError/stopped`` when `stop()` begins. The request
    /// body is consumed and buffered output flushed first. Pass `nil` to wait indefinitely.
    func sleep(milliseconds: Int?) throws {
        try finishRequest()
        try flush()
        let clock = ContinuousClock()
        let deadline = milliseconds.map { clock.now.advanced(by: .milliseconds(max(0, $0))) }
        var watchInput = true
        while true {
            var timeout: Int32 = -1
            if let deadline {
                let left = clock.now.duration(to: deadline)
                if left <= .zero { return }
                let (seconds, attoseconds) = left.components
                let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
                timeout = Int32(clamping: millis)
            }
            var fds = [
                pollfd(fd: fd, events: watchInput ? Int16(POLLIN) : 0, revents: 0),
                pollfd(fd: core.wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            guard Socket.poll(&fds, timeout: timeout) >= 0 else { throw ConnectionError.stopped }
            if fds[1].revents != 0 { throw ConnectionError.stopped }
            let events = Int32(fds[0].revents)
            if events & Int32(POLLERR | POLLHUP | POLLNVAL) != 0 { throw ConnectionError.peerClosed }
            if events & Int32(POLLIN) != 0 {
                // Either the client closed (read returns 0) or it pipelined the next request: keep it.
                if writeIndex == input.count && readIndex == 0 {
                    watchInput = false
                } else if try fill() == 0 {
                    throw ConnectionError.peerClosed
                }
            }
        }
    }
}
