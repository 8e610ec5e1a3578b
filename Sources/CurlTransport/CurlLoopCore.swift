#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// The loop thread's side of a `CurlMultiLoop`: owns the multi handle, every easy handle and every
/// ``CurlTransfer``; nothing here is touched by another thread.
///
/// One turn: apply the queued commands, `curl_multi_perform`, read completions, hand the turn's
/// events to the handler in one call, then sleep in `curl_multi_poll` until a socket is ready,
/// curl's timer fires, or `curl_multi_wakeup` signals new commands.
final class CurlLoopCore {
    private let multi: OpaquePointer
    private let mailbox: CurlLoopMailbox
    private let executor: CurlLoopExecutor
    private let handler: @Sendable ([CurlEvent]) -> Void
    private let configuration: CurlMultiLoop.Configuration

    private var transfers: [CurlTransferID: CurlTransfer] = [:]
    private var transfersByEasy: [OpaquePointer: CurlTransfer] = [:]
    /// This turn's events, delivered together.
    private var events: [CurlEvent] = []
    /// Transfers holding body bytes or a sent count not yet turned into events.
    private var pending: [CurlTransfer] = []
    /// Transfers that used up their quota this turn (see ``CurlFlowControl/turnQuota``).
    private var turnPaused: [CurlTransfer] = []
    /// Transfers whose response is complete while their request body may still be sent
    /// (``CurlResponseEnd``): ended at the end of a turn, once every response byte is handed over.
    private var endedResponses: [CurlTransfer] = []
    /// Reset easy handles kept for the next transfers.
    private var idleEasyHandles: [OpaquePointer] = []
    private var liveEasyHandles = 0
    /// Running transfers that have an idle timeout (the idle scan is skipped while 0).
    private var idleTimedTransfers = 0
    /// Connections a server-trust evaluator accepted (see `CurlServerTrustGate`).
    var trustApprovals = CurlTrustApprovals()
    private var completedCount = 0
    /// Set when this turn completed a transfer (see the spin before the loop sleeps).
    private var completedThisTurn = false
    /// How long the loop looks for new work before it sleeps after completing transfers: ~a
    /// caller's turnaround between two requests. Against nginx (5 rounds, 2026-11-25) it raised
    /// sequential GETs from 3,522 to 3,798 req/s and 16-in-flight from 10,842 to 11,615, for ~9%
    /// more CPU per sequential request (255 → 277 µs, whole process).
    static let spinNanoseconds: UInt64 = 40_000
    private var turns = 0
    private var batches = 0
    private var eventCount = 0

    init(
        multi: OpaquePointer, mailbox: CurlLoopMailbox, executor: CurlLoopExecutor,
        configuration: CurlMultiLoop.Configuration, handler: @escaping @Sendable ([CurlEvent]) -> Void
    ) {
        self.multi = multi
        self.mailbox = mailbox
        self.executor = executor
        self.configuration = configuration
        self.handler = handler
    }

    /// Runs turns until shutdown, then cancels what is left, frees every handle and returns.
    func run() {
        while true {
            // The executor's jobs first (the manager's actor): what they ask of curl joins this turn.
            for job in mailbox.takeJobs() { executor.run(job) }
            let (commands, shutdown) = mailbox.take()
            for command in commands { apply(command) }
            if shutdown { break }
            resumeTurnPaused()
            var running: Int32 = 0
            _ = ancurl_multi_perform(multi, &running)
            readCompletions()
            endTransfersWhoseResponseEnded()
            let nextIdleDeadline = expireIdleTransfers()
            endTurn()
            var ready: Int32 = 0
            // A transfer that used up its turn is paused, so curl would not wake for its socket:
            // do not sleep then, go straight to the next turn. Nor with jobs or commands queued
            // by this thread (the handler's actor code posts them without a wake-up).
            var mustNotSleep = !turnPaused.isEmpty || mailbox.hasWork
            // A turn that completed transfers resumed their callers: their next requests are
            // likely microseconds away, so look for them briefly before sleeping.
            if !mustNotSleep, completedThisTurn { mustNotSleep = mailbox.spin(for: Self.spinNanoseconds) }
            completedThisTurn = false
            _ = ancurl_multi_poll(multi, mustNotSleep ? 0 : pollTimeout(until: nextIdleDeadline), &ready)
        }
        for transfer in transfers.values.sorted(by: { $0.id < $1.id }) {
            cancel(transfer, reason: "the curl loop was shut down")
        }
        endTurn()
        for easy in idleEasyHandles { ancurl_easy_cleanup(easy) }
        liveEasyHandles -= idleEasyHandles.count
        idleEasyHandles = []
        mailbox.close()
        _ = ancurl_multi_cleanup(multi)
        publish()
    }

    // MARK: - Fairness

    /// A transfer paused itself for the rest of this turn (its quota is used up).
    func noteTurnPaused(_ transfer: CurlTransfer) {
        guard !transfer.isTurnPaused else { return }
        transfer.isTurnPaused = true
        turnPaused.append(transfer)
    }

    /// Starts the turn for transfers that used up the last one: their quota is back.
    private func resumeTurnPaused() {
        guard !turnPaused.isEmpty else { return }
        let paused = turnPaused
        turnPaused.removeAll(keepingCapacity: true)
        for transfer in paused {
            transfer.isTurnPaused = false
            guard transfers[transfer.id] === transfer, transfer.flow.startTurn() else { continue }
            _ = ancurl_easy_pause(transfer.easy, transfer.flow.mask)
        }
    }

    // MARK: - Responses that end before their request body

    /// `transfer`'s response is complete; its request body may still hold it open.
    func noteResponseEnded(_ transfer: CurlTransfer) {
        endedResponses.append(transfer)
    }

    /// Ends every listed transfer that libcurl did not end itself — its request body holds it
    /// open — with its complete response as the outcome: the body is stopped (libcurl closes an
    /// HTTP/1.1 connection whose request it did not finish and resets an HTTP/2 stream). A
    /// transfer whose response bytes are not all handed over yet (a paused receive side, a
    /// decoder with input left) waits for a later turn.
    private func endTransfersWhoseResponseEnded() {
        guard !endedResponses.isEmpty else { return }
        let listed = endedResponses
        endedResponses.removeAll(keepingCapacity: true)
        for transfer in listed where transfers[transfer.id] === transfer && transfer.responseEnded {
            guard transfer.canEndWithResponse else {
                endedResponses.append(transfer)
                continue
            }
            _ = ancurl_multi_remove(multi, transfer.easy)
            finish(transfer, code: CurlResponseEnd.code(of: transfer, curlCode: 0), message: nil, cancelled: false)
            completedThisTurn = true
        }
    }

    // MARK: - Events

    func append(_ event: CurlEvent) {
        events.append(event)
    }

    /// Lists `transfer` for a flush at the end of the turn.
    func notePending(_ transfer: CurlTransfer) {
        guard !transfer.isListedPending else { return }
        transfer.isListedPending = true
        pending.append(transfer)
    }

    private func endTurn() {
        for transfer in pending {
            transfer.isListedPending = false
            transfer.flush()
            if !transfer.isTurnPaused { _ = transfer.flow.startTurn() }
        }
        pending.removeAll(keepingCapacity: true)
        turns += 1
        if !events.isEmpty {
            let batch = events
            events.removeAll(keepingCapacity: true)
            batches += 1
            eventCount += batch.count
            handler(batch)
        }
        publish()
    }

    private func publish() {
        let (live, pooled, turns, batches, events) = (liveEasyHandles, idleEasyHandles.count, turns, batches, eventCount)
        mailbox.publish({ stats in
            stats.liveEasyHandles = live
            stats.pooledEasyHandles = pooled
            stats.turns = turns
            stats.batches = batches
            stats.events = events
        }, completedSoFar: completedCount)
    }

    // MARK: - Commands

    private func apply(_ command: CurlLoopCommand) {
        switch command {
        case .start(let id, let request):
            start(id, request)
        case .cancel(let id):
            if let transfer = transfers[id] { cancel(transfer, reason: "cancelled") }
        case .pauseReceiving(let id):
            updateFlow(id) { $0.setReceivingPaused(true) }
        case .resumeReceiving(let id):
            updateFlow(id) { $0.setReceivingPaused(false) }
        case .consumed(let id, let total):
            updateFlow(id) { $0.didConsume(total: total) }
        case .pauseSending(let id):
            updateFlow(id) { $0.setSendingPaused(true) }
        case .resumeSending(let id):
            updateFlow(id) { $0.setSendingPaused(false) }
        }
    }

    private func start(_ id: CurlTransferID, _ request: CurlRequest) {
        guard let easy = takeEasyHandle() else {
            return complete(id, code: ANCURLE_OUT_OF_MEMORY, message: "curl_easy_init failed")
        }
        let transfer = CurlTransfer(id: id, request: request, easy: easy, core: self)
        do {
            try CurlEasyConfiguration.apply(to: transfer)
        } catch {
            recycle(transfer)
            return complete(id, code: error.code, message: error.message)
        }
        transfers[id] = transfer
        transfersByEasy[easy] = transfer
        if request.options.idleTimeout != nil { idleTimedTransfers += 1 }
        let added = ancurl_multi_add(multi, easy)
        guard added == ANCURLM_OK else {
            transfers[id] = nil
            transfersByEasy[easy] = nil
            if request.options.idleTimeout != nil { idleTimedTransfers -= 1 }
            recycle(transfer)
            return complete(id, code: ANCURLE_FAILED_INIT, message: "curl_multi_add_handle failed (CURLMcode \(added))")
        }
    }

    /// Applies a flow-control change; when the pause mask changed, tells curl with
    /// `curl_easy_pause`. Unpausing can deliver held-back bytes right here (they join this turn's
    /// events).
    private func updateFlow(_ id: CurlTransferID, _ change: (inout CurlFlowControl) -> Bool) {
        guard let transfer = transfers[id], change(&transfer.flow) else { return }
        transfer.lastActivity = .now // paused time does not count as idle
        _ = ancurl_easy_pause(transfer.easy, transfer.flow.mask)
    }

    // MARK: - Idle timeouts

    /// Fails every transfer whose idle timeout passed (not counting paused time); returns the
    /// earliest deadline still ahead, if any.
    private func expireIdleTransfers() -> ContinuousClock.Instant? {
        guard idleTimedTransfers > 0 else { return nil }
        let now = ContinuousClock.now
        var next: ContinuousClock.Instant?
        for transfer in transfers.values {
            guard let timeout = transfer.request.options.idleTimeout, !transfer.flow.isPaused else { continue }
            let deadline = transfer.lastActivity + timeout
            if deadline <= now {
                _ = ancurl_multi_remove(multi, transfer.easy)
                finish(transfer, code: ANCURLE_OPERATION_TIMEDOUT, message: "no data moved for \(timeout)", cancelled: false)
            } else if next.map({ deadline < $0 }) ?? true {
                next = deadline
            }
        }
        return next
    }

    /// The configured poll timeout, shortened to wake for an idle deadline.
    private func pollTimeout(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return configuration.pollTimeoutMilliseconds }
        let milliseconds = max(0, SafeTime.milliseconds(deadline - .now) &+ 1) // saturating, never traps
        return Int32(min(Int64(configuration.pollTimeoutMilliseconds), milliseconds))
    }

    // MARK: - Completion

    private func readCompletions() {
        var easy: OpaquePointer?
        var result: Int32 = 0
        while ancurl_multi_info_read(multi, &easy, &result) == 1 {
            guard let easy, let transfer = transfersByEasy[easy] else { continue }
            _ = ancurl_multi_remove(multi, easy)
            if restartOnFreshConnection(transfer) { continue }
            let code = CurlResponseEnd.code(of: transfer, curlCode: result)
            if CurlStaleConnection.shouldResend(transfer, code: code), resendOnFreshConnection(transfer) { continue }
            finish(transfer, code: code, message: nil, cancelled: false)
            completedThisTurn = true
        }
    }

    /// Starts a transfer over on a new connection when the server-trust gate refused a reused one
    /// (nothing was sent: the gate runs before the request is written). Returns whether it did.
    private func restartOnFreshConnection(_ transfer: CurlTransfer) -> Bool {
        guard transfer.wantsFreshConnection, transfer.restartsForTrust == 0 else { return false }
        transfer.wantsFreshConnection = false
        transfer.restartsForTrust += 1
        transfer.errorBuffer[0] = 0
        guard ancurl_easy_setopt_long(transfer.easy, ANCURLOPT_FRESH_CONNECT, 1) == ANCURLE_OK,
              ancurl_multi_add(multi, transfer.easy) == ANCURLM_OK else { return false }
        return true
    }

    /// Sends a transfer again on a new connection, its body from the start: the kept-alive
    /// connection it was written on had been closed by the server (see ``CurlStaleConnection``).
    private func resendOnFreshConnection(_ transfer: CurlTransfer) -> Bool {
        transfer.staleConnectionResends += 1
        transfer.rewindForResend()
        transfer.errorBuffer[0] = 0
        guard ancurl_easy_setopt_long(transfer.easy, ANCURLOPT_FRESH_CONNECT, 1) == ANCURLE_OK,
              ancurl_multi_add(multi, transfer.easy) == ANCURLM_OK else { return false }
        return true
    }

    // MARK: - Server trust

    /// Blocks the loop thread until `evaluator` answers for `transfer`'s new connection, its
    /// timeout passes, or the transfer is cancelled (or the loop shut down). Other transfers do not
    /// progress meanwhile; their idle clocks restart afterwards, as the stall was the loop's.
    func awaitServerTrust(
        of transfer: CurlTransfer, evaluator: ServerTrustEvaluator, context: ServerTrustContext
    ) -> CurlTrustWait.Outcome {
        let wait = CurlTrustWait()
        mailbox.beginTrustWait(wait, for: transfer.id)
        wait.start(evaluator, context)
        // The manager's actor runs on this thread: keep running its jobs meanwhile (a cancel or an
        // invalidation reaches the loop through them and ends the wait).
        let outcome = wait.wait(timeout: evaluator.timeout) {
            for job in mailbox.takeJobs() { executor.run(job) }
        }
        mailbox.endTrustWait()
        let now = ContinuousClock.now
        for other in transfers.values { other.lastActivity = now }
        return outcome
    }

    private func cancel(_ transfer: CurlTransfer, reason: String) {
        _ = ancurl_multi_remove(multi, transfer.easy)
        finish(transfer, code: ANCURLE_ABORTED_BY_CALLBACK, message: reason, cancelled: true)
    }

    /// Emits the completion (after the transfer's pending bytes), forgets the transfer and recycles
    /// its handle. The easy handle must already be out of the multi handle.
    /// `message: nil` takes the transfer's own message for `code` (none for success).
    private func finish(_ transfer: CurlTransfer, code: Int32, message: String?, cancelled: Bool) {
        transfer.flush()
        let message = message ?? (code == 0 ? "" : transfer.message(for: code))
        let metrics = CurlMetricsReader.read(transfer.easy)
        let handshake = TLSHandshakeNotes(bits: ancurl_tls_notes_take(transfer.easy))
        CurlEarlyResponse.disarm(transfer)
        transfers[transfer.id] = nil
        transfersByEasy[transfer.easy] = nil
        if transfer.request.options.idleTimeout != nil { idleTimedTransfers -= 1 }
        recycle(transfer)
        completedCount += 1
        let rejection = transfer.trustCancelled ? nil : transfer.trustRejection
        append(.completed(transfer.id, CurlCompletion(
            code: code, message: message, wasCancelled: cancelled || transfer.trustCancelled, metrics: metrics, trustRejection: rejection,
            handshake: handshake, responseStarted: transfer.receivedStatusLine,
            trailers: code == 0 && !cancelled ? transfer.trailers : []
        )))
    }

    /// A completion for a transfer that never got running.
    private func complete(_ id: CurlTransferID, code: Int32, message: String) {
        completedCount += 1
        append(.completed(id, CurlCompletion(code: code, message: message, wasCancelled: false, metrics: CurlMetrics())))
    }

    // MARK: - Easy handles

    private func takeEasyHandle() -> OpaquePointer? {
        if let easy = idleEasyHandles.popLast() { return easy }
        guard let easy = ancurl_easy_init() else { return nil }
        liveEasyHandles += 1
        return easy
    }

    /// Resets the handle (so curl forgets the callbacks, buffers and lists that point into the
    /// transfer), then frees the transfer's resources; keeps the handle for reuse up to the limit.
    private func recycle(_ transfer: CurlTransfer) {
        if transfer.isListedPending, let index = pending.firstIndex(where: { $0 === transfer }) {
            pending.remove(at: index)
            transfer.isListedPending = false
        }
        // A handle that sent request trailers is never reused: with libcurl 7.88 the next upload
        // on such a handle, reset or not, crashed inside curl_multi_perform (a free of trailer
        // state the reset leaves behind; RequestTrailerTests.sequentialUploadsWithTrailers).
        if idleEasyHandles.count < configuration.easyHandlePoolSize, !transfer.request.sendsTrailers {
            ancurl_easy_reset(transfer.easy)
            idleEasyHandles.append(transfer.easy)
        } else {
            ancurl_easy_cleanup(transfer.easy)
            liveEasyHandles -= 1
        }
        transfer.release()
    }
}
#endif
