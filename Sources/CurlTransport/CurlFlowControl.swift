/// The flow-control state of one transfer, as a pure value: which sides are paused and why, and
/// the receive window's accounting. The loop thread asks it before accepting body bytes and after
/// each command; whenever a method returns `true`, the caller applies ``mask`` with
/// `curl_easy_pause` (which always sets both directions at once).
///
/// Receive side: paused by command (``setReceivingPaused(_:)``), or by the window — once
/// ``received`` runs ``window`` bytes ahead of ``consumed``, ``admit(_:)`` refuses the next chunk
/// (the write callback answers `CURL_WRITEFUNC_PAUSE` and curl keeps that chunk to deliver again
/// after the unpause, so a refused chunk is never counted). Send side: paused by command, or because
/// the body producer had nothing yet (curl paused itself on `CURL_READFUNC_PAUSE`).
struct CurlFlowControl: Sendable, Hashable {
    /// Bytes the transfer may deliver beyond what was consumed; `nil` for no limit.
    private(set) var window: Int64?
    /// Body bytes accepted (since the last ``restart()``).
    private(set) var received: Int64 = 0
    /// Body bytes the consumer reported used (since the last ``restart()``).
    private(set) var consumed: Int64 = 0
    private(set) var receivingPausedByCommand = false
    private(set) var receivingPausedByWindow = false
    private(set) var sendingPaused = false
    /// Fairness: body bytes this transfer may take in one loop turn before it yields to the
    /// others until the next turn (`nil`: no limit). A fast stream otherwise makes every turn
    /// long, and every other transfer's response waits for it.
    let turnQuota: Int64?
    private(set) var receivedThisTurn: Int64 = 0
    private(set) var receivingPausedForTurn = false

    init(window: Int?, turnQuota: Int? = nil) {
        self.window = window.map { Int64(max(1, $0)) }
        self.turnQuota = turnQuota.map { Int64(max(1, $0)) }
    }

    var isReceivingPaused: Bool { receivingPausedByCommand || receivingPausedByWindow || receivingPausedForTurn }

    /// Whether either side is paused (the idle timer does not run then).
    var isPaused: Bool { isReceivingPaused || sendingPaused }

    /// The `curl_easy_pause` bitmask: `CURLPAUSE_RECV` (1) and/or `CURLPAUSE_SEND` (4), or 0.
    var mask: Int32 {
        (isReceivingPaused ? 1 : 0) | (sendingPaused ? 4 : 0)
    }

    /// Drops the receive window (the transfer runs as an HTTP/2 stream whose consumer's buffer
    /// bounds it instead; see ``CurlTransferOptions/keepsWindowOverHTTP2``). Returns whether
    /// ``mask`` changed.
    mutating func removeWindow() -> Bool {
        let before = mask
        window = nil
        receivingPausedByWindow = false
        return mask != before
    }

    /// The write callback offers `count` bytes: `true` accepts (and counts) them; `false` means
    /// answer `CURL_WRITEFUNC_PAUSE` (the receive side is now paused, by command or window).
    mutating func admit(_ count: Int) -> Bool {
        if isReceivingPaused { return false }
        if let window, received - consumed >= window {
            receivingPausedByWindow = true
            return false
        }
        if let turnQuota, receivedThisTurn >= turnQuota {
            receivingPausedForTurn = true
            return false
        }
        received += Int64(count)
        receivedThisTurn += Int64(count)
        return true
    }

    /// A new loop turn: the turn's quota is available again. Returns whether ``mask`` changed
    /// (the transfer had used up the last turn's quota and resumes now).
    mutating func startTurn() -> Bool {
        receivedThisTurn = 0
        guard receivingPausedForTurn else { return false }
        let before = mask
        receivingPausedForTurn = false
        return mask != before
    }

    /// Pauses or resumes the receive side by command; returns whether ``mask`` changed.
    mutating func setReceivingPaused(_ paused: Bool) -> Bool {
        let before = mask
        receivingPausedByCommand = paused
        return mask != before
    }

    /// Pauses or resumes the send side; returns whether ``mask`` changed.
    mutating func setSendingPaused(_ paused: Bool) -> Bool {
        let before = mask
        sendingPaused = paused
        return mask != before
    }

    /// The body producer had nothing: curl pauses the send side itself (no `curl_easy_pause`).
    mutating func producerIsEmpty() {
        sendingPaused = true
    }

    /// The consumer has used `total` bytes (a running total; smaller values are ignored). Returns
    /// whether ``mask`` changed (the window reopened).
    mutating func didConsume(total: Int64) -> Bool {
        guard total > consumed else { return false }
        consumed = total
        guard receivingPausedByWindow, let window, received - consumed < window else { return false }
        let before = mask
        receivingPausedByWindow = false
        return mask != before
    }

    /// A response head replaced an earlier one: its body starts over, and so do the counts.
    mutating func restart() {
        received = 0
        consumed = 0
    }
}
