import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The attempt loop behind ``HTTPClient/send(_:serializer:progress:)``.
extension HTTPClient {
    /// What turns an attempt's body into the value: the serializer, given the request as sent.
    typealias Serialize<Output> = (Data, HTTPURLResponse, URLRequest) throws(NetworkingError) -> Output

    /// The pipeline for a ``Request``: its own transfer options, deadline, redirect policy and hooks.
    func runPipeline<Value, Output: Sendable>(
        _ request: Request<Value>, progress: (@Sendable (RequestProgress) -> Void)?,
        serialize: Serialize<Output>
    ) async throws(NetworkingError) -> HTTPResponse<Output> {
        var client = self
        client.transferOptions = request.transferOptions ?? transferOptions
        if let deadline = request.deadline { client.transferOptions.deadline = deadline }
        if request.redirectPolicy != .follow { client.transferOptions.redirectPolicy = request.redirectPolicy }
        return try await client.runPipeline(
            building: { () throws(NetworkingError) in try self.urlRequest(for: request) },
            hooks: request.hooks, progress: progress, serialize: serialize
        )
    }

    /// build → per attempt: adapt → send (``runAttempt(_:attempt:deadline:progress:)``) →
    /// credential check (the authenticator's renewal, or ``credential`` answering a Basic `401`
    /// once) → pre-process, validate, serialize → on failure the retry policy. Every awaiting call
    /// of the client runs here: the verbs, ``send(_:serializer:)`` and ``send(_:serializer:progress:)``.
    ///
    /// **Limits (one place for every awaiting call).** A limit the caller sets is the limit the
    /// caller sees. The call's deadline (``deadline``, or the retry policy's
    /// ``RetryPolicy/deadline``, the earlier) bounds everything: adapting, each attempt (its
    /// transfer carries it), a credential renewal, the waits between retries; a retry starts only
    /// before it. Without a deadline the request's idle timeout (`timeoutInterval`) is the window
    /// retries must start in, counted from the call's start: an attempt that timed out is never
    /// retried (its timeout used the window), and the caller sees one timeout, not three. The
    /// final error carries ``NetworkingError/attemptCount``; each attempt's completion event
    /// (``CompletionHold``) carries its outcome, the last one the caller's error.
    func runPipeline<Output: Sendable>(
        building build: () throws(NetworkingError) -> URLRequest, hooks: RequestHooks,
        progress: (@Sendable (RequestProgress) -> Void)?, serialize: Serialize<Output>
    ) async throws(NetworkingError) -> HTTPResponse<Output> {
        let id = RequestID.next()
        let monitors = pipeline.monitors
        func emit(_ event: RequestEvent) { for monitor in monitors { monitor.receive(event) } }
        let policy = hooks.retryPolicy ?? pipeline.retryPolicy
        let startedAt = ContinuousClock.now
        let limits = PipelineLimits(options: transferOptions, policy: policy, startedAt: startedAt)
        var attempt = 0
        /// The call's end: the error (counted, with the deadline named) settles the last attempt's
        /// hold, and is reported to the monitors.
        func fail(_ error: NetworkingError, metrics: TransferMetrics? = nil, hold: CompletionHold? = nil) -> NetworkingError {
            let final = limits.finalError(error, attempts: attempt)
            hold?.settle(final, value: nil)
            emit(.completed(id, attempts: attempt, .failure(final), metrics))
            return final
        }

        let original: URLRequest
        do { original = try build() } catch { throw fail(error) }
        if let passed = limits.passedBeforeStart(original) { throw fail(passed) }
        let retryLimit = limits.retryLimit(timeoutInterval: original.timeoutInterval)
        var client = self
        client.transferOptions.deadline = limits.deadline.map(RequestDeadline.at)
        var renewedCredential = false
        /// The Basic credential (``credential``) answering a 401 once: added to every later attempt.
        var basicAnswer: URLRequest?

        while true {
            attempt += 1
            if Task.isCancelled { throw fail(NetworkingError(.cancelled, "the request was cancelled", request: original)) }
            let context = AdapterContext(requestID: id, attempt: attempt, originalRequest: original)
            let sent: URLRequest
            do throws(NetworkingError) {
                let (answer, adapting) = (basicAnswer, client)
                sent = try await limits.race(original) { () async throws(NetworkingError) in
                    try await adapting.adapt(original, context: context, hooks: hooks).answering(with: answer)
                }
            } catch { throw fail(error) }
            emit(.adapted(id, attempt: attempt, sent))
            emit(.started(id, attempt: attempt, sent))

            let failure: NetworkingError
            var failureMetrics: TransferMetrics?
            // Each attempt's completion event waits for this attempt's outcome (HTTPClient+Outcome).
            let hold = CompletionHold()
            let (attemptNumber, attemptClient, deadline) = (attempt, client, limits.deadline)
            let result = await CompletionHold.$current.withValue(hold) { () async -> AttemptResult in
                if let wrapper = pipeline.attemptWrapper {
                    return await wrapper(sent) { request in
                        await attemptClient.runAttempt(request, attempt: attemptNumber, deadline: deadline, progress: progress)
                    }
                } else if let cache {
                    // The HTTP cache wraps each attempt: a fresh hit never reaches the network, a stale
                    // entry is revalidated on every attempt, a 503 still goes to the retry policy.
                    let willStore = await attemptClient.manager.hooks.cache
                    do throws(NetworkingError) {
                        let answer = try await cache.exchange(sent, willStore: willStore) { request throws(NetworkingError) in
                            try await attemptClient.runAttempt(request, attempt: attemptNumber, deadline: deadline, progress: progress).get()
                        }
                        return .success(answer)
                    } catch {
                        return .failure(error)
                    }
                } else {
                    return await attemptClient.runAttempt(sent, attempt: attemptNumber, deadline: deadline, progress: progress)
                }
            }
            switch result {
            case .failure(let error):
                emit(.attemptFailed(id, attempt: attempt, error))
                failure = error
            case .success(let (data, response, metrics)):
                if metrics.redirectCount > 0 {
                    emit(.redirected(id, attempt: attempt, count: metrics.redirectCount, finalURL: response.url))
                }
                emit(.response(id, attempt: attempt, response, metrics))
                if response.statusCode == 401 || response.statusCode == 407 {
                    emit(.challenged(id, attempt: attempt, response))
                }
                // A 401 from another origin (after a redirect) says nothing about the credential,
                // which was never sent there: it is the result, and nothing is renewed for it.
                if !renewedCredential, let authenticator = pipeline.authenticator,
                   RedirectRules.isSameOrigin(sent.url, response.url ?? sent.url) {
                    let retry: Bool
                    do throws(NetworkingError) {
                        retry = try await limits.race(sent) { () async throws(NetworkingError) in
                            do throws(NetworkingError) { return try await authenticator.shouldRetry(sent, response: response) } catch {
                                throw error.adding(request: sent)
                            }
                        }
                    } catch {
                        throw fail(error, metrics: metrics, hold: hold)
                    }
                    if retry {
                        renewedCredential = true
                        let refused = NetworkingError(.unacceptableStatusCode(response.statusCode), "the credential was refused",
                                                      request: sent, response: response)
                        hold.settle(refused, value: nil)
                        emit(.retryScheduled(id, attempt: attempt, delay: .zero, reason: refused))
                        continue
                    }
                }
                if basicAnswer == nil, let retry = challengeRetry(of: sent, after: response) {
                    basicAnswer = retry
                    let unanswered = NetworkingError(.unacceptableStatusCode(401), "answered with the client's credential",
                                                     request: sent, response: response)
                    hold.settle(unanswered, value: nil)
                    emit(.retryScheduled(id, attempt: attempt, delay: .zero, reason: unanswered))
                    continue
                }
                do {
                    let value = try Self.process(data, response: response, request: sent, hooks: hooks, serialize: serialize)
                    hold.settle(nil, value: value)
                    policy.requestSucceeded()
                    emit(.completed(id, attempts: attempt, .success(response), metrics))
                    return HTTPResponse(value: value, response: response, data: data, request: sent, metrics: metrics)
                } catch {
                    failure = error
                    failureMetrics = metrics
                }
            }

            // A cancelled attempt's error (with the response a hook cancelled, if any), or the
            // deadline's, is the result.
            if failure.kind == .cancelled || failure.kind == .deadlineExceeded {
                throw fail(failure, metrics: failureMetrics, hold: hold)
            }
            if Task.isCancelled {
                throw fail(NetworkingError(.cancelled, "the request was cancelled", request: sent, underlyingError: failure),
                           metrics: failureMetrics, hold: hold)
            }
            if let retryLimit, ContinuousClock.now >= retryLimit { throw fail(failure, metrics: failureMetrics, hold: hold) }
            let retryContext = RetryContext(
                request: sent, error: failure, attemptCount: attempt, startedAt: startedAt,
                isBodyReplayable: sent.httpBodyStream == nil, deadline: retryLimit
            )
            guard case .retry(let delay) = await policy.decide(retryContext),
                  retryLimit.map({ ContinuousClock.now.advanced(by: delay) < $0 }) ?? true else {
                throw fail(failure, metrics: failureMetrics, hold: hold)
            }
            hold.settle(failure, value: nil)
            emit(.retryScheduled(id, attempt: attempt, delay: delay, reason: failure))
            do {
                if delay > .zero { try await Task.sleep(for: delay) }
            } catch {
                throw fail(NetworkingError(.cancelled, "cancelled while waiting to retry", request: sent, underlyingError: failure))
            }
        }
    }

    /// The client's adapters, the request's, then the authenticator.
    private func adapt(_ request: URLRequest, context: AdapterContext, hooks: RequestHooks) async throws(NetworkingError) -> URLRequest {
        var adapted = request
        let adapters: [any RequestAdapter] = pipeline.adapters + hooks.adapters + (pipeline.authenticator.map { [$0] } ?? [])
        for adapter in adapters {
            do {
                adapted = try await adapter.adapt(adapted, context: context)
            } catch let error as NetworkingError {
                throw error.adding(request: adapted)
            } catch is CancellationError {
                throw NetworkingError(.cancelled, "cancelled while adapting the request", request: adapted)
            } catch {
                throw NetworkingError(.requestAdaptationFailed, "a request adapter failed", request: adapted, underlyingError: error)
            }
        }
        return adapted
    }

    /// Pre-processes the body, runs the custom validators, then the serializer.
    static func process<Output>(
        _ data: Data, response: HTTPURLResponse, request: URLRequest, hooks: RequestHooks, serialize: Serialize<Output>
    ) throws(NetworkingError) -> Output {
        var body = data
        if let preprocessor = hooks.dataPreprocessor {
            do { body = try preprocessor.transform(data) } catch {
                throw NetworkingError(.responseSerializationFailed, "the data pre-processor failed",
                                      request: request, response: response, body: data, underlyingError: error)
            }
        }
        for validator in hooks.validators {
            do { try validator(request, response, body) } catch let error as NetworkingError {
                throw error.adding(request: request, response: response, body: data)
            } catch {
                throw NetworkingError(.responseValidationFailed, "the response failed a custom validation",
                                      request: request, response: response, body: data, underlyingError: error)
            }
        }
        return try serialize(body, response, request)
    }
}

private extension URLRequest {
    /// This request with the `Authorization` of `answer` (a Basic challenge's retry), if any and
    /// if no adapter set one.
    func answering(with answer: URLRequest?) -> URLRequest {
        guard let answer, value(forHTTPHeaderField: "Authorization") == nil,
              let authorization = answer.value(forHTTPHeaderField: "Authorization") else { return self }
        var request = self
        request.setValue(authorization, forHTTPHeaderField: "Authorization")
        return request
    }
}
