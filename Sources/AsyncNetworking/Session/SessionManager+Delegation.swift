import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the manager does with each URLSession callback, once routed to its transfer.
/// Everything here runs synchronously on the manager's executor (the delegate queue).
extension SessionManager {
    /// The one entry from every transport: an event of attempt `id`, on the manager's executor.
    /// Events of an attempt the manager no longer runs (cancelled, replaced) are ignored.
    func attempt(_ id: AttemptID, didReport event: AttemptEvent) {
        guard let state = transfersByAttempt[id] else { return }
        switch event {
        case .head(let head):
            attemptDidReceive(head, for: state, attempt: id)
        case .body(let data):
            if state.deferred != nil { return state.deferred!.append(.data(data)) }
            process(data: data, for: state)
        case .sent(let bytes, let totalExpected):
            attemptDidSend(bytes: bytes, totalExpected: totalExpected, state: state)
        case .trailers(let fields):
            state.trailers = fields
        case .completed(let outcome):
            state.attemptEnded = true
            if let metrics = outcome.metrics { state.connectionMetrics = metrics }
            if let failure = outcome.bodyReadFailure, state.cancellation == nil { state.cancellation = failure }
            taskDidComplete(attemptID: id, error: outcome.error)
        }
    }

    /// A response head. On a transport that follows no redirect and answers no challenge itself
    /// (curl, stubs), a redirect goes to the redirect rules and a 401/407 a credential might answer
    /// to the challenge rules (``SessionManager/attemptDidReceiveRedirectOrChallenge(_:for:attempt:)``).
    private func attemptDidReceive(_ head: ResponseHead, for state: TransferState, attempt id: AttemptID) {
        // Interim 1xx responses (100 Continue, 103 Early Hints) are not the response.
        guard head.statusCode >= 200 else { return }
        // Set-Cookie is stored before anything is decided on the head (a redirect included).
        storeCookies(from: head, url: head.url ?? state.currentRequest.url, for: state)
        // Curl's heads were checked line by line as they arrived (CurlHeadParser); URLSession's
        // only arrive parsed, so their fields are checked here.
        if !engine.checksResponseHeads, let made = head.foundationResponse, let problem = ResponseHeadValidation.problem(in: made) {
            return fail(state, with: NetworkingError(.transport(.badServerResponse), problem, request: state.originalRequest))
        }
        if !engine.followsRedirects, startsRedirectDecision(head, for: state, attempt: id) { return }
        if state.deferred != nil { return state.deferred!.append(.response(head)) }
        process(response: head, for: state)
        // A 401/407 held back for a credential: the Session layer raises the challenge itself.
        if !engine.followsRedirects, state.pendingAuthentication != nil, state.deferred?.isEmpty == true {
            askForCredential(after: head, for: state, attempt: id)
        }
    }

    /// URLSession's response callback.
    func taskDidReceive(response: URLResponse, attemptID: AttemptID) {
        guard let state = transfersByAttempt[attemptID] else { return }
        guard let http = response as? HTTPURLResponse else {
            return fail(state, with: NetworkingError(
                .transport(.badServerResponse), "the response is not HTTP", request: state.originalRequest
            ))
        }
        var head = ResponseHead(http)
        head.url = http.url
        attempt(attemptID, didReport: .head(head))
    }

    private func attemptDidSend(bytes: Int64, totalExpected: Int64, state: TransferState) {
        guard bytes > 0 else { return }
        // URLSession's running total can repeat or jump on Linux; the per-call delta is exact.
        state.bytesSent += bytes
        if state.expectedToSend == nil, totalExpected > 0 { state.expectedToSend = totalExpected }
        if let expected = state.expectedToSend, state.bytesSent > expected { state.expectedToSend = state.bytesSent }
        if state.sink.wantsProgress { state.sink.didProgress(state.uploadProgress, upload: true) }
        if activity.isObserved { publishUploadProgress(state) }
    }

    func taskDidComplete(attemptID: AttemptID, error: (any Error)?) {
        guard let state = transfersByAttempt[attemptID] else { return }
        if state.deferred != nil, state.cancellation != nil || state.isPausing {
            // Cancelled while a decision was pending: what was held back no longer matters.
            state.deferred = nil
            state.pendingAuthentication = nil
        }
        if state.deferred != nil {
            state.deferred!.append(.complete(error))
            // A held-back 401/407 whose challenge never came is final.
            if state.pendingAuthentication != nil, !state.challengePending { deliverPendingAuthentication(of: state) }
            return
        }
        process(completionError: error, for: state)
    }

    // MARK: Processing

    func process(response head: ResponseHead, for state: TransferState) {
        guard state.phase == .running, state.cancellation == nil, !state.isPausing, state.resendRequest == nil else { return }
        if state.head != nil { state.resetReceived() }
        state.setHead(head, url: head.url ?? state.currentRequest.url)
        state.responseInstant = .now
        state.expectedToReceive = TransferState.expectedBodyLength(of: head, method: state.currentRequest.httpMethod)
        if let limit = state.options.maxResponseBytes, let expected = state.expectedToReceive, expected > limit {
            return fail(state, with: tooLarge(state, limit: limit, detail: "Content-Length is \(expected)"))
        }
        if holdsBackAuthenticationResponse(head, url: state.headURL) {
            // A credential may answer the challenge that follows; until then this 401/407 and its
            // body might be replaced by the retry's response, so nothing is delivered yet.
            state.deferred = []
            state.pendingAuthentication = head
            return
        }
        if let hook = hooks.response, let response = state.response {
            state.deferred = []
            return decideResponse(response, for: state, hook: hook)
        }
        if let error = deliverResponse(to: state) {
            fail(state, with: error)
        }
    }

    func process(data: Data, for state: TransferState) {
        guard state.phase == .running, state.cancellation == nil, !state.isPausing, state.resendRequest == nil else { return }
        if state.firstByteInstant == nil { state.firstByteInstant = .now }
        state.bytesReceived += Int64(data.count)
        if let limit = state.options.maxResponseBytes, state.bytesReceived > limit {
            return fail(state, with: tooLarge(state, limit: limit, detail: "received \(state.bytesReceived) bytes"))
        }
        if let error = state.sink.didReceive(data: data, for: state) {
            return fail(state, with: error.adding(request: state.originalRequest, response: state.response))
        }
        if state.sink.wantsProgress { state.sink.didProgress(state.downloadProgress, upload: false) }
        if activity.isObserved {
            activity.broadcastData(state.id, data)
            publishDownloadProgress(state)
        }
    }

    func process(completionError error: (any Error)?, for state: TransferState) {
        if let task = state.task { transfersByAttempt[task.attemptID] = nil }
        if state.isPausing, state.cancellation == nil {
            return didPause(state)
        }
        if let resend = state.resendRequest, state.cancellation == nil {
            state.resendRequest = nil
            return relaunch(state, with: resend)
        }
        if let cancellation = state.cancellation {
            return finish(state, .failure(cancellation.adding(request: state.originalRequest, response: state.response)))
        }
        if let stream = state.bodyStream, stream.streamStatus == .error {
            // The body could not be read to its end (a file part changed or vanished while being
            // sent): whatever the server answered, the request it saw was not the one asked for.
            // (`streamError` is only read from our own streams: swift-corelibs-foundation traps in
            // it for a CF-backed `InputStream`.)
            let failure = (stream as? BodyInputStream)?.failure
                ?? NetworkingError(.fileReadFailed, "the request body stream reported an error")
            return finish(state, .failure(failure.adding(request: state.originalRequest, response: state.response)))
        }
        if let error {
            let mapped = NetworkingError.transport(
                error, request: state.originalRequest, response: state.response, body: nil,
                received: (state.bytesReceived, state.expectedToReceive)
            )
            // A refused challenge surfaces as a cancel: the 401/407 already received is the result.
            guard state.refusedChallenge, mapped.kind == .cancelled, state.head != nil else {
                return finish(state, .failure(mapped))
            }
        }
        guard state.head != nil else {
            return finish(state, .failure(NetworkingError(
                .transport(.badServerResponse), "the transfer ended without an HTTP response",
                request: state.originalRequest
            )))
        }
        if state.sink.wantsProgress, state.bytesReceived == 0 {
            state.sink.didProgress(state.downloadProgress, upload: false)
        }
        finish(state, .success(state.metrics()))
    }

    /// Replays callbacks held back while a decision was pending, in their original order.
    func releaseDeferred(of state: TransferState) {
        guard let held = state.deferred else { return }
        state.deferred = nil
        for (index, callback) in held.enumerated() {
            switch callback {
            case .response(let head): process(response: head, for: state)
            case .data(let data): process(data: data, for: state)
            case .complete(let error): process(completionError: error, for: state)
            }
            if state.deferred != nil {
                // A replayed response started a new decision: keep the rest for after it.
                state.deferred! += held[(index + 1)...]
                return
            }
        }
    }

    private func tooLarge(_ state: TransferState, limit: Int64, detail: String) -> NetworkingError {
        NetworkingError(
            .responseTooLarge(limit: limit), "the response body is larger than \(limit) bytes (\(detail))",
            request: state.originalRequest, response: state.response
        )
    }
}
