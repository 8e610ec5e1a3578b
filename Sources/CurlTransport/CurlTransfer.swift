#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation
import Glibc

/// One running transfer, owned by the loop thread (its `CurlLoopCore`), never shared: curl calls
/// its callbacks from inside `curl_multi_perform` / `curl_easy_pause` on that thread.
///
/// Body bytes and sent counts are collected here during a turn and turned into events by
/// ``flush()`` — before any other event of the transfer, and at the end of the turn.
final class CurlTransfer {
    let id: CurlTransferID
    let request: CurlRequest
    let easy: OpaquePointer
    unowned let core: CurlLoopCore

    /// Parses the header lines curl hands over.
    private var parser = CurlHeadParser()
    /// Body bytes received this turn and not yet turned into an event.
    private var pendingData = Data()
    /// `bytesSent` changed this turn.
    private var pendingSent = false
    /// Whether ``core`` already lists this transfer as holding pending bytes.
    var isListedPending = false
    /// Listed in the core's transfers paused for the rest of the turn.
    var isTurnPaused = false

    /// Body bytes accepted for the current response head.
    var bytesReceived: Int64 { flow.received }
    private(set) var bytesSent: Int64 = 0
    /// Pauses and the receive window (see ``CurlFlowControl``).
    var flow: CurlFlowControl
    /// Set when the body could not be read; the completion then reports `CURLE_READ_ERROR`.
    private(set) var bodyFailure: String?
    /// Set when the response head broke RFC 9110/9112 (see ``CurlHeadParser``); the completion
    /// then reports `CURLE_WEIRD_SERVER_REPLY` with this reason.
    var headFailure: String? { parser.failure }
    /// Trailer fields received after the final head (see ``CurlHeadParser``).
    var trailers: [(name: String, value: String)] { parser.trailers }
    /// Decodes the current response's body when it has a content coding (see ``CurlBodyDecoding``).
    var decoding: CurlBodyDecoding?
    /// Set when the body was not a valid encoding; the completion then reports
    /// `CURLE_BAD_CONTENT_ENCODING`.
    var decodeFailure: String?

    /// `CURLOPT_ERRORBUFFER`, `CURL_ERROR_SIZE` bytes.
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// `CURLOPT_HTTPHEADER`; curl does not copy it, so it lives until the handle is reset.
    var headerList: OpaquePointer?
    /// A private CA file written for `CURLOPT_CAINFO` (libcurl before 7.77); removed on release.
    var caFilePath: String?
    /// The open file of a `.file` body, or -1.
    var fileDescriptor: Int32 = -1
    /// The next byte of a `.data` or `.file` body to send, relative to the body's start.
    private var bodyOffset: Int64 = 0

    /// Set by the server-trust gate: the evaluator refused the connection (the completion reports it).
    var trustRejection: ServerTrustFailureReason?
    /// Set by the server-trust gate: the transfer was cancelled while the evaluator decided.
    var trustCancelled = false
    /// Set by the server-trust gate: a reused connection the evaluator never accepted was offered;
    /// nothing was sent, and the transfer starts over on a new connection.
    var wantsFreshConnection = false
    /// How often the transfer started over for a new connection (at most once).
    var restartsForTrust = 0
    /// How often the transfer was sent again after a stale kept-alive connection (at most once;
    /// see ``CurlStaleConnection``).
    var staleConnectionResends = 0

    /// A status line arrived (the server started answering).
    private(set) var receivedStatusLine = false
    /// The last final response head completed, if any.
    private(set) var lastHead: ResponseHead?
    /// The local port of the transfer's connection (`CURLOPT_PREREQFUNCTION`), or -1.
    var localPort: Int32 = -1
    /// The local port of the connection armed for an early response (``CurlEarlyResponse``), or
    /// -1; `nil` before the body's first read.
    var earlyResponsePort: Int32?

    /// How the current final response's body ends, and whether it has (``CurlResponseEnd``).
    var bodyEnd = CurlResponseEnd.BodyEnd.streamEnd
    /// Body bytes of the current response as they arrived (before content decoding).
    var wireBytesReceived: Int64 = 0
    /// A chunked body's framing, followed while its end matters (``CurlResponseEnd``).
    var chunkedFraming: CurlChunkedFraming?
    /// The current final response is complete: its head, and its body when it has one.
    var responseEnded = false
    /// `CURLOPT_VERBOSE` is on (the debug callback is fed).
    var verbose = false

    /// When a byte last moved (or the transfer started, or a side was unpaused): the idle timer's base.
    var lastActivity = ContinuousClock.now

    /// Joined body chunks are handed over once they reach this size, even mid-turn.
    static let maxJoinedChunk = 1 << 20
    /// Body bytes one transfer takes per loop turn before the others get theirs (see
    /// ``CurlFlowControl/turnQuota``).
    static let turnQuota = 256 << 10

    init(id: CurlTransferID, request: CurlRequest, easy: OpaquePointer, core: CurlLoopCore) {
        self.id = id
        self.request = request
        self.easy = easy
        self.core = core
        flow = CurlFlowControl(window: request.options.receiveWindow, turnQuota: Self.turnQuota)
        errorBuffer = .allocate(capacity: Int(ANCURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(ANCURL_ERROR_SIZE))
    }

    /// Frees what curl no longer uses. Call only after the easy handle was reset or cleaned up.
    func release() {
        if let headerList { ancurl_slist_free(headerList) }
        headerList = nil
        if fileDescriptor >= 0 { close(fileDescriptor) }
        fileDescriptor = -1
        if let caFilePath { unlink(caFilePath) }
        caFilePath = nil
        errorBuffer.deallocate()
    }

    /// curl's error text for `code` (the error buffer when filled, else `curl_easy_strerror`).
    func message(for code: Int32) -> String {
        if let bodyFailure { return bodyFailure }
        if let headFailure { return headFailure }
        if let decodeFailure { return decodeFailure }
        if errorBuffer[0] != 0 { return String(cString: errorBuffer) }
        guard code != 0, let text = ancurl_easy_strerror(code) else { return "" }
        return String(cString: text)
    }

    // MARK: - Events

    /// Appends the pending `sent` and `data` events of this transfer to the turn's batch.
    func flush() {
        if pendingSent {
            pendingSent = false
            core.append(.sent(id, totalBytes: bytesSent))
        }
        if !pendingData.isEmpty {
            core.append(.data(id, pendingData))
            pendingData = Data()
        }
    }

    // MARK: - Callbacks (loop thread, inside curl)

    /// `CURLOPT_WRITEFUNCTION`. While the receive side is paused, or when the receive window is
    /// full, answers `CURL_WRITEFUNC_PAUSE` without keeping the bytes: curl delivers the same chunk
    /// again after the unpause, so nothing is counted twice.
    func didReceive(_ buffer: UnsafeMutablePointer<CChar>?, count: Int) -> Int {
        guard count > 0, let buffer else { return count }
        if let decoding { return didReceiveEncoded(buffer, count: count, decoding: decoding) }
        guard flow.admit(count) else {
            if flow.receivingPausedForTurn { core.noteTurnPaused(self) }
            return Int(ANCURL_WRITEFUNC_PAUSE)
        }
        lastActivity = .now
        pendingData.append(UnsafeRawBufferPointer(start: buffer, count: count).bindMemory(to: UInt8.self))
        core.notePending(self)
        if pendingData.count >= Self.maxJoinedChunk { flush() }
        countWireBytes(count)
        return count
    }

    /// Adds decoded body bytes to this turn's pending data (``CurlBodyDecoding``).
    func appendDecoded(_ bytes: UnsafeRawBufferPointer) {
        pendingData.append(bytes.bindMemory(to: UInt8.self))
        core.notePending(self)
        if pendingData.count >= Self.maxJoinedChunk { flush() }
    }

    /// `CURLOPT_HEADERFUNCTION`: one complete header line.
    func didReceiveHeader(_ buffer: UnsafeMutablePointer<CChar>?, count: Int) -> Int {
        guard count > 0, let buffer else { return count }
        lastActivity = .now
        if !receivedStatusLine, count >= 5, memcmp(buffer, "HTTP/", 5) == 0 { receivedStatusLine = true }
        parser.consumeLines(UnsafeRawBufferPointer(start: buffer, count: count)) { head in didComplete(head) }
        // Returning less than `count` aborts the transfer; the completion reports the reason.
        return parser.failure == nil ? count : 0
    }

    /// Forgets the trailer made of the trailer section's last line (see `acceptTrailerSectionFailure`).
    func dropLastTrailerLine() {
        parser.dropLastTrailerLine()
    }

    /// `CURLOPT_PREREQFUNCTION`: a request is about to be sent on the handle (the first, or curl's
    /// own retry): the last response's trailer section is over (``CurlHeadParser/beginRequest()``).
    func willSendRequest() {
        parser.beginRequest()
    }

    /// A completed final head becomes a response event.
    private func didComplete(_ head: ResponseHead) {
        lastHead = head
        flush()
        // A head that replaces an earlier one: its body starts over.
        flow.restart()
        if !request.options.keepsWindowOverHTTP2, head.httpVersion.hasPrefix("HTTP/2") {
            _ = flow.removeWindow() // before any body byte: nothing is paused by the window yet
        }
        decoding = request.options.decodesContent ? CurlBodyDecoding.forHead(head) : nil
        core.append(.response(id, head))
        beginTrackingBodyEnd(of: head)
    }

    /// Feeds a head and the body bytes after it that were read from the socket after curl gave up
    /// on the connection (``CurlEarlyResponse``), as curl would have handed them over.
    func replayDrained(lines: [String], body: Data) {
        for line in lines {
            var bytes = line.utf8.map { CChar(bitPattern: $0) }
            _ = bytes.withUnsafeMutableBufferPointer { didReceiveHeader($0.baseAddress, count: $0.count) }
        }
        guard lastHead != nil, !body.isEmpty else { return }
        var bytes = body.map { CChar(bitPattern: $0) }
        _ = bytes.withUnsafeMutableBufferPointer { didReceive($0.baseAddress, count: $0.count) }
    }

    /// `CURLOPT_READFUNCTION`.
    func read(into buffer: UnsafeMutablePointer<CChar>?, capacity: Int) -> Int {
        guard let buffer, capacity > 0 else { return 0 }
        if earlyResponsePort == nil { CurlEarlyResponse.arm(self) }
        let target = UnsafeMutableRawBufferPointer(start: buffer, count: capacity)
        let count: Int
        switch request.body {
        case .empty:
            return 0
        case .data(let data):
            let start = Int(bodyOffset)
            count = min(capacity, data.count - start)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[start..<(start + count)]))
            }
        case .file(let url, let offset, let length):
            let wanted = Int(min(Int64(capacity), length - bodyOffset))
            guard wanted > 0 else { return 0 }
            let got = pread(fileDescriptor, buffer, wanted, off_t(offset + bodyOffset))
            guard got > 0 else {
                let reason = got < 0 ? String(cString: strerror(errno)) : "the file ended \(length - bodyOffset) bytes early"
                return fail("cannot read \(url.path) at offset \(offset + bodyOffset): \(reason)")
            }
            count = got
        case .producer(let producer, _):
            switch producer.read(into: target) {
            case .bytes(let produced):
                count = min(produced, capacity)
            case .wouldBlock:
                flow.producerIsEmpty()
                return Int(ANCURL_READFUNC_PAUSE)
            case .end:
                return 0
            case .failed(let reason):
                return fail(reason)
            }
        }
        lastActivity = .now
        bodyOffset += Int64(count)
        bytesSent += Int64(count)
        pendingSent = true
        core.notePending(self)
        return count
    }

    /// Starts the body over for a resend on a fresh connection (``CurlStaleConnection``): nothing
    /// of it counts as sent, and the early-response watch arms again on the new connection.
    func rewindForResend() {
        CurlEarlyResponse.disarm(self)
        earlyResponsePort = nil
        bodyOffset = 0
        bytesSent = 0
        pendingSent = true
        core.notePending(self)
    }

    /// `CURLOPT_SEEKFUNCTION`: curl rewinds the body to send it again (a retried request).
    func seek(to offset: Int64, origin: Int32) -> Int32 {
        guard origin == SEEK_SET, offset >= 0 else { return ANCURL_SEEKFUNC_CANTSEEK }
        switch request.body {
        case .data, .file:
            guard let length = request.body.length, offset <= length else { return ANCURL_SEEKFUNC_FAIL }
            bodyOffset = offset
            bytesSent = offset
            pendingSent = true
            core.notePending(self)
            return ANCURL_SEEKFUNC_OK
        case .empty, .producer:
            return ANCURL_SEEKFUNC_CANTSEEK
        }
    }

    private func fail(_ reason: String) -> Int {
        bodyFailure = reason
        return Int(ANCURL_READFUNC_ABORT)
    }
}

/// The C callbacks; `userdata` is the `CurlTransfer`, unretained (the core keeps it alive while
/// curl may call).
enum CurlCallbacks {
    static let write: ancurl_data_callback = { buffer, size, count, userdata in
        Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue().didReceive(buffer, count: size * count)
    }

    static let header: ancurl_data_callback = { buffer, size, count, userdata in
        Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue().didReceiveHeader(buffer, count: size * count)
    }

    static let read: ancurl_data_callback = { buffer, size, count, userdata in
        Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue().read(into: buffer, capacity: size * count)
    }

    static let seek: ancurl_seek_callback = { userdata, offset, origin in
        Unmanaged<CurlTransfer>.fromOpaque(userdata!).takeUnretainedValue().seek(to: offset, origin: origin)
    }
}
#endif
