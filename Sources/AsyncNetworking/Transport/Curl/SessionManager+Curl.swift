#if os(Linux) && canImport(CCurlShim)
import Foundation
import FoundationNetworking

/// The curl transport's side of the seam: starting attempts, and turning each loop turn's batch
/// of events into the same calls URLSession's delegate makes — so redirects, challenges, limits,
/// progress and completion run through the one Session layer. curl follows no redirect and
/// answers no challenge itself: the Session layer's rules decide, and a new attempt carries on.
extension SessionManager {
    /// Starts the next attempt of `state` on the curl loop.
    func startCurlAttempt(
        _ state: TransferState, request: URLRequest, fileLength: Int64, policy: SecurityPolicy, on curl: CurlSessionTransport
    ) throws(NetworkingError) -> CurlAttempt {
        let window = state.sink.flowControlWindow { [weak self, id = state.id] consumed in
            self?.reportConsumption(consumed, of: id)
        }
        var (curlRequest, stream) = try curl.makeRequest(
            request, upload: state.upload, fileLength: fileLength, window: window,
            streamedBody: state.takePendingBodyStream()
        )
        curlRequest.options.tls = CurlTLSOptions(policy: policy)
        state.bodyStream = stream
        let id: CurlTransferID
        do {
            id = try curl.loop.start(curlRequest)
        } catch {
            throw NetworkingError(.requestSerializationFailed, "the request cannot be sent: \(error.message)", request: request)
        }
        let attempt = CurlAttempt(id: id, loop: curl.loop, url: curlRequest.url, bodyLength: curlRequest.body.length)
        attempt.policy = policy
        attempt.consumedAtStart = state.sink.consumedBytes
        return attempt
    }

    /// Forwards what the consumer has read to the transfer's current attempt (its receive window).
    nonisolated func reportConsumption(_ consumed: Int64, of id: TransferID) {
        perform { manager in
            guard let state = manager.transfers[id], let attempt = state.task as? CurlAttempt else { return }
            attempt.loop.didConsume(attempt.id, totalBytes: max(0, consumed - attempt.consumedAtStart))
        }
    }

    /// One loop turn's events, in order.
    func curlDidDeliver(_ events: [CurlEvent]) {
        for event in events {
            let identifier = Int(truncatingIfNeeded: event.transferID.rawValue)
            guard let state = transfersByTask[identifier], let attempt = state.task as? CurlAttempt,
                  attempt.id == event.transferID else { continue }
            switch event {
            case .response(_, let head):
                guard let response = head.makeHTTPURLResponse(url: attempt.url) else {
                    fail(state, with: NetworkingError(.transport(.badServerResponse), "the response head is not valid HTTP", request: state.originalRequest))
                    continue
                }
                curlDidReceive(response, for: state, attempt: attempt)
            case .data(_, let data):
                taskDidReceive(data: data, taskIdentifier: identifier)
            case .sent(_, let total):
                let delta = total - attempt.sentTotal
                attempt.sentTotal = total
                if delta > 0 { taskDidSend(bytes: delta, totalExpected: attempt.bodyLength, taskIdentifier: identifier) }
            case .completed(_, let completion):
                attempt.hasCompleted = true
                state.connectionMetrics = ConnectionMetrics(completion.metrics)
                if completion.code == 26, case .file(let fileURL) = state.upload, state.cancellation == nil {
                    state.cancellation = NetworkingError(
                        .fileReadFailed, "\(fileURL.path) could not be read to its end: it changed or vanished while being sent",
                        request: state.originalRequest, fileURL: fileURL
                    )
                }
                taskDidComplete(taskIdentifier: identifier, error: Self.error(of: completion, attempt: attempt))
            }
        }
    }

    /// A response head: a redirect goes to the redirect rules, a 401/407 that a credential might
    /// answer to the challenge rules; anything else is the response.
    private func curlDidReceive(_ response: HTTPURLResponse, for state: TransferState, attempt: CurlAttempt) {
        let identifier = attempt.taskIdentifier
        if state.deferred == nil, state.cancellation == nil,
           let proposal = RedirectRules.proposedRequest(after: response, for: state.currentRequest) {
            // Hold the 3xx and what follows until the decision: refused, it is the result.
            state.deferred = [.response(response)]
            guard state.redirectCount < RedirectRules.maximumRedirects else {
                state.cancellation = NetworkingError(
                    .transport(.httpTooManyRedirects), "more than \(RedirectRules.maximumRedirects) redirects",
                    request: state.originalRequest
                )
                return curlRedirectDecided(nil, identifier: identifier)
            }
            taskWillRedirect(taskIdentifier: identifier, response: response, newRequest: proposal) { [weak self] decided in
                // Called on the manager's executor (synchronously, or from the hook's task).
                self?.assumeIsolated { $0.curlRedirectDecided(decided, identifier: identifier) }
            }
            return
        }
        taskDidReceive(response: response, taskIdentifier: identifier)
        if state.pendingAuthentication === response {
            askForCredential(after: response, for: state, identifier: identifier)
        }
    }

    /// The redirect decision: a request to follow starts a new attempt (the 3xx body is dropped);
    /// `nil` with no re-send pending makes the 3xx the result.
    private func curlRedirectDecided(_ decided: URLRequest?, identifier: Int) {
        guard let state = transfersByTask[identifier], let attempt = state.task as? CurlAttempt else { return }
        if let decided, state.resendRequest == nil, state.cancellation == nil {
            if !RedirectRules.sendsBody(decided.httpMethod) { state.upload = .none }
            state.resendRequest = decided
        }
        guard state.resendRequest != nil, state.cancellation == nil else {
            return releaseDeferred(of: state)
        }
        let completed = state.deferred?.contains { if case .complete = $0 { true } else { false } } ?? false
        state.deferred = nil
        if completed || attempt.hasCompleted {
            process(completionError: nil, for: state)
        } else {
            attempt.cancel()
        }
    }

    /// Asks the challenge rules (hook, per-host credential) about a held-back 401/407, as
    /// URLSession's task-level challenge would.
    private func askForCredential(after response: HTTPURLResponse, for state: TransferState, identifier: Int) {
        let url = response.url ?? state.currentRequest.url
        let header = response.statusCode == 407 ? "Proxy-Authenticate" : "WWW-Authenticate"
        let offer = (response.value(forHTTPHeaderField: header) ?? "").lowercased()
        guard offer.hasPrefix("basic") else {
            // Only Basic is answered here, as by FoundationNetworking: any other scheme's
            // 401/407 is the result, as received.
            return deliverPendingAuthentication(of: state)
        }
        let method = NSURLAuthenticationMethodHTTPBasic
        let realm = offer.range(of: "realm=\"").flatMap { start in
            offer[start.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
        }
        let space = URLProtectionSpace(
            host: url?.host ?? "", port: url?.port ?? (url?.scheme == "https" ? 443 : 80),
            protocol: url?.scheme, realm: realm, authenticationMethod: method
        )
        state.challengePending = true
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: state.authenticationAttempts,
            failureResponse: response, error: nil, sender: CurlChallengeSender()
        )
        taskDidReceive(challenge: challenge, taskIdentifier: identifier) { [weak self] disposition, credential in
            self?.assumeIsolated { $0.curlChallengeAnswered(disposition, credential, space: space, identifier: identifier) }
        }
    }

    /// A credential retries the request in a new attempt; a refusal already delivered the 401/407.
    /// The credential is scoped to the challenge's protection space: the Session layer adds it to
    /// later attempts to that origin only (``ScopedCredential``), never to a redirect elsewhere.
    private func curlChallengeAnswered(
        _ disposition: URLSession.AuthChallengeDisposition, _ credential: URLCredential?, space: URLProtectionSpace,
        identifier: Int
    ) {
        transfersByTask[identifier]?.challengePending = false
        guard disposition == .useCredential, let credential,
              let state = transfersByTask[identifier], let attempt = state.task as? CurlAttempt else { return }
        guard let scoped = ScopedCredential(credential, space: space) else { return deliverPendingAuthentication(of: state) }
        state.credential = scoped
        state.authenticationAttempts += 1
        state.resendRequest = state.currentRequest
        if attempt.hasCompleted {
            process(completionError: nil, for: state)
        } else {
            attempt.cancel()
        }
    }

    /// The error URLSession would have reported for this completion, or `nil` on success; a TLS
    /// failure is a ``NetworkingError`` naming the host and what failed (``NetworkingError/tls(code:message:host:policy:handshake:responseStarted:)``).
    private static func error(of completion: CurlCompletion, attempt: CurlAttempt) -> (any Error)? {
        let url = attempt.url
        if let reason = completion.trustRejection, !completion.wasCancelled {
            return NetworkingError.serverTrustRejected(host: url.host ?? "", reason: reason)
        }
        guard let code = completion.urlErrorCode else { return nil }
        if !completion.wasCancelled, url.scheme?.lowercased() == "https",
           let failure = NetworkingError.tls(
               code: completion.code, message: completion.message, host: url.host ?? "", policy: attempt.policy,
               handshake: completion.handshake, responseStarted: completion.responseStarted
           ) {
            return failure
        }
        var userInfo: [String: Any] = [NSURLErrorFailingURLErrorKey: url]
        userInfo[NSLocalizedDescriptionKey] = completion.message.isEmpty ? "curl error \(completion.code)" : completion.message
        return URLError(code, userInfo: userInfo)
    }

    /// After invalidation, shuts the loop down once no attempt runs, then reports the session invalid.
    func completeCurlInvalidationIfIdle() {
        guard case .curl(let curl) = engine, lifecycle == .finishing || lifecycle == .cancelling,
              transfersByTask.isEmpty, !transfers.values.contains(where: { $0.phase == .running })
        else { return }
        curl.loop.requestShutdown()
        delegateQueue.bypassing { session.invalidateAndCancel() }
        sessionDidBecomeInvalid()
    }
}

extension ConnectionMetrics {
    /// From what curl measured.
    init(_ metrics: CurlMetrics) {
        self.init(
            nameLookup: metrics.nameLookup, connect: metrics.connect, secureConnection: metrics.appConnect,
            requestStart: metrics.preTransfer, firstByte: metrics.startTransfer, total: metrics.total,
            httpVersion: metrics.httpVersion, reusedConnection: metrics.reusedConnection,
            remoteAddress: metrics.remoteAddress, remotePort: metrics.remotePort
        )
    }
}

/// The sender of challenges made for curl attempts: answers go through the completion handler.
final class CurlChallengeSender: NSObject, URLAuthenticationChallengeSender {
    func use(_ credential: URLCredential, for challenge: URLAuthenticationChallenge) {}
    func continueWithoutCredential(for challenge: URLAuthenticationChallenge) {}
    func cancel(_ challenge: URLAuthenticationChallenge) {}
    func performDefaultHandling(for challenge: URLAuthenticationChallenge) {}
    func rejectProtectionSpaceAndContinue(with challenge: URLAuthenticationChallenge) {}
}
#endif
