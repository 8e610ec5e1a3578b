/// The machine's outputs: what the I/O shell does, in order.
extension TransferStateMachine {
    /// One thing for the shell to do.
    enum Action: Sendable {
        /// Ask the scheduler for a slot (admitted now, or queued until ``admitted()``).
        case schedule
        /// Take the transfer out of the scheduler's queue (it was suspended while waiting).
        case unschedule
        /// Give back a slot the scheduler handed to a transfer that no longer needs it.
        case releaseSlot
        /// Start an attempt sending `request` (with the scoped credential, the sink's `Range`,
        /// a fresh body stream); reset what the previous attempt received and sent; announce
        /// `transferResumed`. The transfer keeps its slot.
        case startAttempt(TransferAttemptID, Request)
        /// Stop the attempt (the transport confirms with a completion). When `armWatchdog`, the
        /// shell calls ``cancellationTimedOut(_:)`` should that confirmation never come.
        case cancelAttempt(TransferAttemptID, armWatchdog: Bool)
        /// Pause the attempt in place.
        case pauseAttempt(TransferAttemptID)
        /// Unpause the attempt.
        case resumeAttempt(TransferAttemptID)
        /// Forget what this attempt received so far (a replaced response).
        case resetReceived
        /// Deliver the final response head to the sink (it may fail: then ``cancel(_:)``).
        case deliverHead(Head)
        /// Deliver a replayed body chunk to the sink (it may fail: then ``cancel(_:)``).
        case deliverBody(Body)
        /// Report upload progress (bytes sent by the current attempt since the last report).
        case deliverUploadProgress(Int64)
        /// Feed these held events of the attempt back, in order, to ``replay(_:_:)``.
        case replay(TransferAttemptID, [HeldEvent])
        /// Decide about a redirect (scheme, security policy, redirect policy, hook), then call
        /// ``redirectDecided(_:_:)``.
        case decideRedirect(TransferAttemptID, head: Head, proposal: Request)
        /// Decide about a challenge (hook, per-host credential), then call ``challengeAnswered(_:_:)``.
        case decideChallenge(TransferAttemptID, head: Head?)
        /// Refuse the transport's challenge now (URLSession: `.cancelAuthenticationChallenge`);
        /// the machine has already applied the refusal.
        case refuseChallenge(TransferAttemptID)
        /// Run the response hook, then call ``responseHookAnswered(_:_:)``.
        case decideResponse(TransferAttemptID, head: Head)
        /// Turn the transfer into a download (the hook's destination), before the head is delivered.
        case becomeDownload
        /// Announce `transferSuspended` (held while waiting, or paused in place).
        case announceSuspended
        /// Announce `transferResumed` (unpaused in place).
        case announceResumed
        /// A pause landed: free the slot, forget what was received, tell the sink (`didPause`)
        /// and announce `transferSuspended`.
        case pauseLanded
        /// Throw this error from `suspend()` / `resume()`.
        case reject(Rejection)
        /// End the transfer: tell the sink, remove it from the registry, and free its slot when
        /// `wasRunning` (else take it out of the scheduler's queue). Returned exactly once.
        case finish(Ending, wasRunning: Bool)
    }

    /// What ``attemptReceivedBody(_:_:)`` asks for: allocation-free on the hot path.
    enum BodyAction: Sendable {
        /// Deliver the chunk to the sink (it may fail: then ``cancel(_:)``).
        case deliver(Body)
        /// Kept by the machine until a decision.
        case held
        /// Nothing to do (an old attempt's, or one being stopped).
        case ignore
        /// Something else happened (the response-size limit): perform these.
        case actions([Action])
    }

    /// How a transfer ended.
    enum Ending: Sendable {
        /// It completed (whatever the status code).
        case success
        /// It failed.
        case failure(Reason)
    }

    /// Why a transfer failed.
    enum Reason: Sendable {
        /// The shell stopped it: the caller's cancel, a sink's error, a refused redirect's error.
        case cancelled(Failure)
        /// The attempt failed.
        case transport(Failure)
        /// More than `limit` redirects.
        case tooManyRedirects(limit: Int)
        /// The body passed the limit: `declared` by the head, else `received` so far.
        case responseTooLarge(limit: Int64, length: Int64, declared: Bool)
        /// The attempt ended without a final response head.
        case noResponse
        /// The response hook cancelled it.
        case responseHookCancelled
        /// The manager was invalidated.
        case invalidated(InvalidationStage)
    }

    /// When invalidation caught the transfer (each has its own message today).
    enum InvalidationStage: Sendable, Hashable {
        /// Before it ever started (held or queued).
        case beforeStart
        /// Before a new attempt (a re-send, a redirect, a retry, an admission, a landed pause).
        case beforeRestart
        /// Running, cancelled by `invalidateAndCancel()`.
        case cancelled
        /// Still registered when the transport reported the session invalid.
        case sessionEnded
    }

    /// Why `suspend()` or `resume()` throws.
    enum Rejection: Sendable, Hashable {
        /// The transfer has finished.
        case finished
        /// It cannot be suspended while running (``SuspendStyle/unsupported``).
        case unsupported
        /// The manager was invalidated (a held transfer cannot be resumed).
        case invalidated
    }
}

extension TransferStateMachine.Action: Equatable
    where Payload.Request: Equatable, Payload.Head: Equatable, Payload.Body: Equatable, Payload.Failure: Equatable {}
extension TransferStateMachine.BodyAction: Equatable
    where Payload.Request: Equatable, Payload.Head: Equatable, Payload.Body: Equatable, Payload.Failure: Equatable {}
extension TransferStateMachine.Ending: Equatable where Payload.Failure: Equatable {}
extension TransferStateMachine.Reason: Equatable where Payload.Failure: Equatable {}
