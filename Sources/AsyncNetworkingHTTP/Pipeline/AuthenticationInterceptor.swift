import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Adds a credential to every attempt and renews it when it expires or is refused, one renewal
/// at a time (Alamofire's `AuthenticationInterceptor`).
///
/// - Before each attempt the current credential is applied. When there is none or it
///   ``AuthenticationCredential/requiresRefresh``, the attempt first waits for a renewal.
/// - When a response says the credential was refused (a 401 by default) and the request carried
///   the *current* credential, a renewal starts — or, when one is already running, the request
///   joins it. When the request carried an *older* credential, a newer one already exists: the
///   request is retried with it and nothing is renewed.
/// - **Single flight**: 50 concurrent requests that all hit 401 cause exactly one
///   ``Authenticator/refresh(_:)``; each then retries once with the new credential (a second
///   refusal is the request's result). A failed renewal fails every waiting request with its
///   error (a ``NetworkingError`` as it is, anything else as
///   ``NetworkingError/Kind/authenticationFailed``).
/// - The credential is a header of the request it adapts, so it goes only to that request's
///   origin: the manager's redirect rules drop it on a redirect to another origin (see
///   ``SessionManager``'s redirect rules), and a 401 from another origin is the request's result —
///   it renews nothing, since the credential was never sent there.
/// - Waiting follows the caller's task: cancelling it ends its wait at once with
///   ``NetworkingError/Kind/cancelled``; the renewal goes on for the others.
///
/// ```swift
/// client.pipeline.authenticator = AuthenticationInterceptor(authenticator: OAuth(), credential: saved)
/// ```
public actor AuthenticationInterceptor<A: Authenticator>: AuthenticatingAdapter {
    /// The authenticator.
    public nonisolated let authenticator: A
    /// The credential in use, or `nil` before the first renewal.
    public private(set) var credential: A.Credential?
    /// How many renewals have finished (successfully or not).
    public private(set) var refreshCount = 0

    private var isRefreshing = false
    private var waiters: [Int: CheckedContinuation<A.Credential, any Error>] = [:]
    private var nextWaiter = 0
    /// Renewals finished so far, and the last one's result: a waiter whose renewal finished before
    /// its continuation was stored (entering the continuation can be a suspension point) takes the
    /// result from here instead of waiting for a renewal that already happened.
    private var renewalsFinished = 0
    private var lastRenewal: Result<A.Credential, any Error>?
    /// Waiters cancelled before their continuation was stored.
    private var cancelledEarly: Set<Int> = []
    /// Waiters inside ``renewed()``.
    private var inRenewal: Set<Int> = []

    /// Creates an interceptor starting with `credential` (default none: the first request renews).
    public init(authenticator: A, credential: A.Credential? = nil) {
        self.authenticator = authenticator
        self.credential = credential
    }

    /// Replaces the credential (after a sign-in, say).
    public func setCredential(_ credential: A.Credential?) {
        self.credential = credential
    }

    /// Requests waiting for a renewal now.
    var waitingCount: Int { waiters.count }

    /// Applies the current credential, renewing it first when needed.
    public func adapt(_ request: URLRequest, context: AdapterContext) async throws -> URLRequest {
        var request = request
        let current: A.Credential
        if let credential, !credential.requiresRefresh {
            current = credential
        } else {
            current = try await renewed()
        }
        authenticator.apply(current, to: &request)
        return request
    }

    /// See ``AuthenticatingAdapter/shouldRetry(_:response:)`` and the type's overview.
    public func shouldRetry(_ request: URLRequest, response: HTTPURLResponse) async throws(NetworkingError) -> Bool {
        guard authenticator.didRequest(request, with: response) else { return false }
        if let credential, !isRefreshing, !authenticator.isRequest(request, authenticatedWith: credential) {
            return true // a newer credential exists: retry with it
        }
        _ = try await renewed()
        return true
    }

    /// Waits for the running renewal, starting one when none runs.
    private func renewed() async throws(NetworkingError) -> A.Credential {
        let id = nextWaiter
        nextWaiter += 1
        // The renewal this waiter waits for ends as `renewalsFinished` passes this value.
        let awaited = renewalsFinished + 1
        inRenewal.insert(id)
        defer {
            inRenewal.remove(id)
            cancelledEarly.remove(id)
        }
        if !isRefreshing {
            isRefreshing = true
            let previous = credential
            let authenticator = authenticator
            Task {
                let result: Result<A.Credential, any Error>
                do { result = .success(try await authenticator.refresh(previous)) } catch { result = .failure(error) }
                self.finishRenewal(result)
            }
        }
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    if cancelledEarly.remove(id) != nil { return continuation.resume(throwing: CancellationError()) }
                    if renewalsFinished >= awaited, let lastRenewal { return continuation.resume(with: lastRenewal) }
                    waiters[id] = continuation
                }
            } onCancel: {
                Task { await self.cancelWaiter(id) }
            }
        } catch let error as NetworkingError {
            throw error
        } catch is CancellationError {
            throw NetworkingError(.cancelled, "cancelled while waiting for a credential refresh")
        } catch {
            throw NetworkingError(.authenticationFailed, "the credential refresh failed", underlyingError: error)
        }
    }

    private func finishRenewal(_ result: Result<A.Credential, any Error>) {
        isRefreshing = false
        refreshCount += 1
        renewalsFinished += 1
        lastRenewal = result
        if case .success(let fresh) = result { credential = fresh }
        let waiting = waiters
        waiters = [:]
        for continuation in waiting.values { continuation.resume(with: result) }
    }

    private func cancelWaiter(_ id: Int) {
        guard let waiter = waiters.removeValue(forKey: id) else {
            // Still on its way to being stored: it is resumed cancelled when it is.
            if inRenewal.contains(id) { cancelledEarly.insert(id) }
            return
        }
        waiter.resume(throwing: CancellationError())
    }
}
