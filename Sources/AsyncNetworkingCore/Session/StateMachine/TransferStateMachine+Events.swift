/// The inputs' payloads: facts the I/O shell classified before asking the machine.
extension TransferStateMachine {
    /// What the shell learned from a response head (the machine never reads the head itself).
    struct HeadFacts: Sendable {
        /// The status code; 1xx heads are interim and ignored.
        var status: Int
        /// The request a redirect proposes (a 3xx with a usable `Location`, built under the
        /// redirect rules), or `nil` when the head is not a redirect to decide about.
        var redirect: Request?
        /// Whether a credential might answer this head's challenge, and how the challenge comes.
        var authentication: AuthenticationFact = .none
        /// The body length the head declares when it is comparable with what is counted (not
        /// compressed); 0 for a body-less response. Checked against the response-size limit.
        var declaredLength: Int64?

        /// A head with its facts.
        init(status: Int, redirect: Request? = nil, authentication: AuthenticationFact = .none, declaredLength: Int64? = nil) {
            self.status = status
            self.redirect = redirect
            self.authentication = authentication
            self.declaredLength = declaredLength
        }
    }

    /// How a 401/407 that a credential might answer is decided.
    enum AuthenticationFact: Sendable, Hashable {
        /// Not a challenge a credential could answer: the head is final.
        case none
        /// Ask now (the Session layer raises the challenge itself, as on curl): the head is held
        /// and ``Action/decideChallenge(_:head:)`` is returned.
        case challengeNow
        /// The transport raises the challenge itself, later (URLSession): the head is held; if
        /// the attempt ends before ``TransferStateMachine/attemptReceivedChallenge(_:)``, the held
        /// head is the result.
        case challengeMayFollow
    }

    /// How an attempt ended.
    enum AttemptOutcome: Sendable {
        /// The exchange completed.
        case success
        /// The transport reports a cancel (ours, or a refused challenge's on URLSession).
        case cancelled(Failure)
        /// Any other failure, already mapped (a body stream that failed to read wins over the
        /// transport's error, as today).
        case failed(Failure)
    }

    /// The shell's answer about a redirect (after its scheme, security-policy, redirect-policy and
    /// hook checks).
    enum RedirectAnswer: Sendable {
        /// Follow with this request, in a new attempt (the 3xx body is dropped).
        case follow(Request)
        /// Do not follow: the 3xx is the result.
        case refuse
        /// Do not follow, and fail the transfer (an unsupported scheme, a policy the target
        /// host's security policy forbids).
        case fail(Failure)
        /// The transport follows with this request inside the same attempt (URLSession's own
        /// redirection, answered with the request): counted; the redirect's response replaces the
        /// 3xx, which is dropped with its body.
        case followInAttempt(Request)
        /// Do not follow; the transport reports the 3xx itself as the attempt's response
        /// (URLSession answered with `nil`): the held 3xx is dropped, what follows is processed.
        case refuseInAttempt
    }

    /// The shell's answer to a challenge (hook, per-host credential).
    enum ChallengeAnswer: Sendable, Hashable {
        /// Retry in a new attempt that carries the credential (the shell keeps and scopes it).
        case retry
        /// The transport retries inside the same attempt (URLSession's own `.useCredential`):
        /// the held head and its body are dropped; the retry's response replaces them.
        case retryInAttempt
        /// No credential: the held 401/407 is the result.
        case refuse
    }

    /// The response hook's answer.
    enum ResponseHookAnswer: Sendable, Hashable {
        /// Deliver the head and what follows.
        case allow
        /// Turn the transfer into a download (the shell keeps the destination), then deliver.
        case becomeDownload
        /// Fail the transfer with ``Reason/responseHookCancelled``.
        case cancel
    }

    /// How a running transfer can be suspended, as the shell knows from its sink and transport.
    enum SuspendStyle: Sendable, Hashable {
        /// Stop the attempt; ``resume()`` starts a new one (a download's `Range` request).
        case restart
        /// Pause the attempt where it stands (curl's `curl_easy_pause`).
        case inPlace
        /// Neither (a data transfer on URLSession, which restarts a body from byte 0).
        case unsupported
    }
}

extension TransferStateMachine.HeadFacts: Equatable where Payload.Request: Equatable {}
extension TransferStateMachine.AttemptOutcome: Equatable where Payload.Failure: Equatable {}
extension TransferStateMachine.RedirectAnswer: Equatable where Payload.Request: Equatable, Payload.Failure: Equatable {}
