#if os(Linux) && canImport(CCurlShim)
import CCurlShim
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension SessionManager {
    /// Opens a WebSocket connection (RFC 6455) to `url` and returns it once the opening handshake
    /// succeeded.
    ///
    /// The connection is the curl transport's: TLS, the ``SecurityPolicy`` for the host (custom
    /// roots, pins, client identities, ``SecurityPolicy/disabled``), the manager's proxy
    /// (tunnelled with `CONNECT`), configuration headers and the ``CookieJar`` (its cookies sent,
    /// the 101's `Set-Cookie` stored) apply as for HTTP. A `401` offering Basic is answered once
    /// with the host's credential (``setCredential(_:forHost:)``) unless `headers` has an
    /// `Authorization` of its own; with a challenge hook (``SessionHooks/challenge``) the hook is
    /// asked instead, as for HTTP (again while the server refuses its credential, up to
    /// ``maxAuthenticationAttempts``). User info in the URL (`wss://user:password@host/`) is sent
    /// as an HTTP request to the same URL sends it: `Authorization: Basic` of the decoded user and
    /// password with the opening handshake, unless `headers` or the configuration set an
    /// `Authorization` of their own. Handshakes follow no redirect: a 3xx answer throws
    /// ``NetworkingError/Kind/webSocketHandshakeFailed``.
    ///
    /// - Parameters:
    ///   - url: `ws`, `wss`, `http` or `https`; others throw ``NetworkingError/Kind/unsupportedScheme(_:)``.
    ///   - protocols: subprotocols to offer, in order of preference (default none); the server's
    ///     choice is ``WebSocket/negotiatedProtocol``, and a choice not offered fails the handshake.
    ///   - headers: extra header fields for the handshake request (for example `Authorization`,
    ///     `Origin`, `Cookie`); the handshake's own fields (`Upgrade`, `Sec-WebSocket-*`, ...) are
    ///     refused with ``NetworkingError/Kind/webSocketHandshakeFailed``. Default none. Every field
    ///     of the handshake (these, the configuration's, the jar's `Cookie`, a credential) passes
    ///     the header rule HTTP requests pass — a token name, no control character but HTAB in a
    ///     value — or the call throws ``NetworkingError/Kind/requestSerializationFailed`` before
    ///     anything is connected.
    ///   - options: limits, compression and timeouts (``WebSocketOptions``; defaults documented there).
    ///
    /// Suspends while connecting and during the handshake (bounded by
    /// ``WebSocketOptions/handshakeTimeout``). Cancellation throws ``NetworkingError/Kind/cancelled``
    /// and abandons the connection. On the URLSession transport (Linux) and the stub transport
    /// this throws ``NetworkingError/Kind/unsupportedOperation``: WebSockets need the curl transport.
    public func webSocket(
        to url: URL, protocols: [String] = [], headers: [String: String] = [:], options: WebSocketOptions = WebSocketOptions()
    ) async throws(NetworkingError) -> WebSocket {
        let scheme = url.scheme?.lowercased() ?? ""
        let httpScheme: String
        switch scheme {
        case "ws", "http": httpScheme = "http"
        case "wss", "https": httpScheme = "https"
        default: throw NetworkingError(.unsupportedScheme(scheme), "a WebSocket URL is ws, wss, http or https: \(NetworkingError.redacted(url))")
        }
        guard url.host?.isEmpty == false, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw NetworkingError(.invalidURL, "a WebSocket URL needs a host")
        }
        components.scheme = httpScheme
        components.fragment = nil
        // The URL's user info is a credential for its own origin, sent as an HTTP request to the
        // same URL sends it (both transports): `Authorization: Basic` of the decoded `user:password`,
        // at once, unless a field of the caller or the configuration already authorizes. It is
        // taken out of the URL curl connects to.
        let userInfo = (components.user != nil || components.password != nil) ? (user: components.user ?? "", password: components.password ?? "") : nil
        components.user = nil
        components.password = nil
        guard let httpURL = components.url else { throw NetworkingError(.invalidURL, "the WebSocket URL cannot be used") }
        try Self.checkWebSocketArguments(protocols: protocols, headers: headers, options: options)
        let policy = try securityPolicy(checking: URLRequest(url: httpURL))
        #if os(Linux) && canImport(CCurlShim)
        guard case .curl = engine else {
            throw NetworkingError(.unsupportedOperation, "WebSockets need the curl transport; this manager uses \(engineName) (on Linux, URLSession has no working WebSocket support)")
        }
        let tls = CurlTLSOptions(policy: policy)
        var fields = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
        // The configuration's fields as given (a URLRequest would drop a bad value silently: the
        // one header rule below refuses it instead).
        for field in configurationHeaders.fields
        where !fields.contains(where: { $0.name.lowercased() == field.name.lowercased() }) && !WebSocketHandshake.reservedHeaderNames.contains(field.name.lowercased()) {
            fields.append((field.name, field.value))
        }
        if let userInfo, !fields.contains(where: { $0.name.lowercased() == "authorization" }) {
            fields.append(("Authorization", "Basic " + Data("\(userInfo.user):\(userInfo.password)".utf8).base64EncodedString()))
        }
        // The manager's cookie jar, as for HTTP: its cookies for this URL unless the caller sent a
        // Cookie field of its own, and the 101's Set-Cookie stored.
        if let cookieJar, !fields.contains(where: { $0.name.lowercased() == "cookie" }),
           let cookie = cookieJar.cookieHeader(for: httpURL) {
            fields.append(("Cookie", cookie))
        }
        let proxy = self.proxy
        if let refusal = proxy.refusal(for: httpURL) { throw refusal }
        func connect(_ fields: [(name: String, value: String)]) async throws(NetworkingError) -> WebSocket {
            // Every field of the handshake — the caller's, the configuration's, the URL's
            // credential, the jar's Cookie, a challenge's answer — passes the one header rule that
            // HTTP requests pass, before anything is connected.
            if let problem = HeaderFieldValidation.problem(in: fields) {
                throw NetworkingError(.requestSerializationFailed, "\(problem); nothing was sent")
            }
            let handshake = WebSocketHandshake(url: httpURL, protocols: protocols, headers: fields, compression: options.compression)
            var request = WebSocketConnectRequest(url: httpURL, handshake: handshake, tls: tls, options: options)
            request.policy = policy
            request.proxy = proxy.server(for: httpURL)
            request.usesEnvironmentProxy = proxy.mode == .environment
            return try await WebSocket.connect(request)
        }
        // A 401 offering Basic is answered as HTTP answers it: the challenge hook when set (asked
        // again, with the failure count, while it gives credentials the server refuses, up to
        // maxAuthenticationAttempts), else once with the host's credential (setCredential) —
        // unless the caller sent its own Authorization.
        var failures = 0
        var answered = fields
        while true {
            do {
                let socket = try await connect(answered)
                if let cookieJar, !socket.handshakeSetCookies.isEmpty {
                    cookieJar.setCookies(fromSetCookieValues: socket.handshakeSetCookies, for: httpURL)
                }
                return socket
            } catch {
                guard error.kind == .webSocketHandshakeFailed, failures < (hooks.challenge == nil ? 1 : maxAuthenticationAttempts),
                      let answer = await challengeAnswer(to: error, url: httpURL, fields: fields, failures: failures) else {
                    throw error
                }
                failures += 1
                answered = fields + [answer]
            }
        }
        #else
        _ = policy
        throw NetworkingError(.unsupportedOperation, "WebSockets need the curl transport, which this platform does not have")
        #endif
    }

    /// The `Authorization` field answering a handshake's Basic 401, or `nil` (another status or
    /// scheme, the caller's own `Authorization`, the hook refused, no credential with a user and
    /// password). The challenge hook is asked as for HTTP — a Basic protection space with the
    /// offer's realm, `previousFailureCount` the credentials already refused, the 401 as
    /// `failureResponse` — in a ``ChallengeContext`` whose ``ChallengeContext/transfer`` is a
    /// number of its own (a WebSocket is not a transfer); without a hook, the host's credential.
    private func challengeAnswer(
        to error: NetworkingError, url: URL, fields: [(name: String, value: String)], failures: Int
    ) async -> (name: String, value: String)? {
        guard let response = error.response, response.statusCode == 401,
              let basic = ChallengeSpace.basicChallenge(of: response),
              !fields.contains(where: { $0.name.lowercased() == "authorization" }),
              let host = url.host else { return nil }
        let credential: URLCredential?
        if let hook = hooks.challenge {
            let space = ChallengeSpace.origin(url, realm: basic.realm)
            let challenge = URLAuthenticationChallenge(
                protectionSpace: space, proposedCredential: nil, previousFailureCount: failures,
                failureResponse: response, error: nil, sender: SessionChallengeSender()
            )
            switch await hook(ChallengeContext(transfer: nextTransferID(), challenge: challenge)) {
            case .useCredential(let chosen): credential = chosen
            case .refuse: return nil
            }
        } else {
            credential = credentials[host.lowercased()]
        }
        guard let user = credential?.user, let password = credential?.password else { return nil }
        return ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }
    private nonisolated var engineName: String {
        switch engine {
        case .urlSession: "URLSession"
        case .stubs: "stubs"
        default: "another transport"
        }
    }

    static func checkWebSocketArguments(protocols: [String], headers: [String: String], options: WebSocketOptions) throws(NetworkingError) {
        let tokenCharacters = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        for name in protocols where name.isEmpty || !name.allSatisfy({ tokenCharacters.contains($0) }) {
            throw NetworkingError(.webSocketHandshakeFailed, "the subprotocol \(name.debugDescription) is not an HTTP token; nothing was sent")
        }
        guard Set(protocols).count == protocols.count else {
            throw NetworkingError(.webSocketHandshakeFailed, "a subprotocol is offered twice; nothing was sent")
        }
        // The fields' syntax is checked with every other field of the handshake (webSocket(to:)).
        for name in headers.keys where WebSocketHandshake.reservedHeaderNames.contains(name.lowercased()) {
            throw NetworkingError(.webSocketHandshakeFailed, "the header field \(name) belongs to the WebSocket handshake; nothing was sent")
        }
        if let compression = options.compression, !compression.isValid {
            throw NetworkingError(.webSocketHandshakeFailed, "permessage-deflate window bits are out of range (client 9–15, server 8–15); nothing was sent")
        }
        guard options.maximumMessageSize > 0, options.receiveBufferSize > 0, options.sendBufferSize > 0,
              options.handshakeTimeout > .zero, options.closeTimeout > .zero else {
            throw NetworkingError(.webSocketHandshakeFailed, "WebSocket sizes and timeouts must be positive; nothing was sent")
        }
    }
}

#if os(Linux) && canImport(CCurlShim)
extension WebSocket {
    /// Starts the I/O thread and waits for the opening handshake.
    static func connect(_ request: WebSocketConnectRequest) async throws(NetworkingError) -> WebSocket {
        do {
            try CurlLibrary.load()
        } catch {
            throw NetworkingError(.transportUnavailable, "libcurl cannot be loaded: \(error.message)")
        }
        guard an_ws_curl_load() == 0 else {
            throw NetworkingError(.transportUnavailable, "libcurl has no curl_easy_send/curl_easy_recv")
        }
        let channel = try WebSocketChannel(options: request.options)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<WebSocketChannelState.VoidResult, Never>) in
                let cancelled = channel.state.withLock { state in
                    if Task.isCancelled { return true }
                    state.opener = continuation
                    return false
                }
                if cancelled {
                    continuation.resume(returning: .failure(NetworkingError(.cancelled, "the WebSocket was cancelled while connecting")))
                } else {
                    WebSocketCurlIO.start(request, channel: channel)
                }
            }
        } onCancel: {
            channel.update { state in
                guard state.phase == .connecting else { return [] }
                state.phase = .finished
                var resumptions: [WebSocketResumption] = []
                if let trustWait = state.trustWait { resumptions.append { trustWait.resolve(.cancelled) } }
                guard let opener = state.opener else { return resumptions }
                state.opener = nil
                return resumptions + [{ opener.resume(returning: .failure(NetworkingError(.cancelled, "the WebSocket was cancelled while connecting"))) }]
            }
            channel.wake()
        }
        try result.get()
        guard let outcome = channel.state.withLock({ $0.handshake }) else {
            throw NetworkingError(.webSocketClosed, "the WebSocket closed while opening")
        }
        return WebSocket(channel: channel, outcome: outcome)
    }
}
#endif
