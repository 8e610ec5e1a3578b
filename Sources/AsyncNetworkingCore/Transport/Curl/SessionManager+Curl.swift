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
        var pipe: CurlBodyPipe?
        var pump: SequenceBody.Pump?
        if case .sequence(let body) = state.upload {
            guard let next = body.makePump() else {
                throw NetworkingError(
                    .bodyStreamNotReplayable,
                    "the request body had to be sent again and its sequence can be iterated only once (give a factory to re-send it)",
                    request: state.originalRequest
                )
            }
            pump = next
            pipe = CurlBodyPipe()
        }
        var (curlRequest, stream) = try curl.makeRequest(
            request, upload: state.upload, fileLength: fileLength, window: window,
            streamedBody: state.takePendingBodyStream(), bodyPipe: pipe
        )
        if case .sequence(let body) = state.upload, body.trailers != nil {
            // libcurl 7.88 sends request trailers only after a chunked HTTP/1.1 body.
            curlRequest.sendsTrailers = true
            curlRequest.options.httpVersion = .http1_1
        }
        curlRequest.options.tls = CurlTLSOptions(policy: policy)
        curlRequest.options.proxy = proxy.server(for: curlRequest.url)
        curlRequest.options.usesEnvironmentProxy = proxy.mode == .environment
        if let scoped = state.proxyCredential, let route = curlRequest.options.proxy ?? environmentProxy(for: curlRequest.url) {
            // The challenge hook's answer to a proxy's 407 goes to that proxy, when this attempt
            // goes through it (routed explicitly, so it goes nowhere else).
            let authorized = scoped.applied(to: route)
            if authorized != route { curlRequest.options.proxy = authorized }
        }
        state.bodyStream = stream
        let id: CurlTransferID
        do {
            id = try curl.loop.start(curlRequest)
        } catch {
            throw NetworkingError(.requestSerializationFailed, "the request cannot be sent: \(error.message)", request: request)
        }
        if let pipe, let pump {
            pipe.onReadable { [loop = curl.loop] in loop.resumeSending(id) }
            let trailers: RequestTrailers? = if case .sequence(let body) = state.upload { body.trailers } else { nil }
            state.sequencePump = SequenceBodyPump(pump, trailers: trailers, into: pipe, request: state.originalRequest)
        }
        let attempt = CurlAttempt(id: id, loop: curl.loop, url: curlRequest.url, bodyLength: curlRequest.body.length)
        attempt.policy = policy
        attempt.proxy = curlRequest.options.proxy
        attempt.usesEnvironmentProxy = curlRequest.options.proxy == nil && curlRequest.options.usesEnvironmentProxy
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

    /// One loop turn's events, in order, translated to the seam's ``AttemptEvent``s: the native
    /// head goes up as it is (no `HTTPURLResponse` is made here), a completion carries its mapped
    /// error and metrics.
    func curlDidDeliver(_ events: [CurlEvent]) {
        for event in events {
            let id = AttemptID(event.transferID.rawValue)
            guard let state = transfersByAttempt[id], let attempt = state.task as? CurlAttempt else { continue }
            switch event {
            case .response(_, var head):
                head.url = attempt.url
                self.attempt(id, didReport: .head(head))
            case .data(_, let data):
                self.attempt(id, didReport: .body(data))
            case .sent(_, let total):
                let delta = total - attempt.sentTotal
                attempt.sentTotal = total
                if delta > 0 { self.attempt(id, didReport: .sent(bytes: delta, totalExpected: attempt.bodyLength)) }
            case .completed(_, let completion):
                var outcome = AttemptOutcome(error: Self.error(of: completion, attempt: attempt), metrics: ConnectionMetrics(completion.metrics))
                if completion.code != 0, let failure = state.sequencePump?.failure {
                    // The body sequence threw: that is why the request could not be completed.
                    outcome.bodyReadFailure = failure
                } else if completion.code == 26, case .file(let fileURL) = state.upload {
                    outcome.bodyReadFailure = NetworkingError(
                        .fileReadFailed, "\(fileURL.path) could not be read to its end: it changed or vanished while being sent",
                        request: state.originalRequest, fileURL: fileURL
                    )
                }
                if !completion.trailers.isEmpty { self.attempt(id, didReport: .trailers(completion.trailers)) }
                self.attempt(id, didReport: .completed(outcome))
            }
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
        if !completion.wasCancelled, let failure = CurlProxyFailure.error(of: completion, proxy: attempt.proxy, url: url) {
            return failure
        }
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
              transfersByAttempt.isEmpty, !transfers.values.contains(where: { $0.phase == .running })
        else { return }
        curl.loop.requestShutdown()
        delegateQueue.bypassing { underlyingSession.invalidateAndCancel() }
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
        localAddress = metrics.localAddress
        localPort = metrics.localPort
        // libcurl decodes no content coding here (CurlBodyDecoding does): what it counted is what
        // came off the wire.
        bodyBytesReceived = metrics.bytesReceived
    }
}
#endif
