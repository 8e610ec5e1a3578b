#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation
import FoundationNetworking
import Glibc

/// What the I/O thread needs to open one WebSocket.
struct WebSocketConnectRequest: Sendable {
    /// The `http`/`https` URL curl connects to (a `ws`/`wss` URL with its scheme swapped).
    var url: URL
    var handshake: WebSocketHandshake
    var tls: CurlTLSOptions
    /// The host's security policy, to classify TLS failures as HTTP transfers do.
    var policy: SecurityPolicy = .default
    var options: WebSocketOptions
    /// The manager's proxy for this URL (``ProxyConfiguration/server(for:)``), tunnelled with
    /// `CONNECT`; `nil` goes direct, or by the environment when ``usesEnvironmentProxy``.
    var proxy: ProxyServer?
    /// Whether libcurl may read `http_proxy` and the rest (``ProxyConfiguration/environment``).
    var usesEnvironmentProxy = true
}

/// One WebSocket's I/O, on a thread of its own (never the cooperative pool):
///
/// 1. a private easy handle with `CURLOPT_CONNECT_ONLY` connects to the `http(s)` URL —
///    proxies (tunnelled with `CONNECT`), TLS and the security policy's options are curl's, as
///    for HTTP — with `curl_easy_perform`, which returns once the connection (and TLS) is up;
/// 2. the opening handshake is written and its answer read with `curl_easy_send`/`recv`;
/// 3. then the thread loops: read while the reader's queue has room (`curl_easy_recv` until
///    `CURLE_AGAIN`, as libcurl asks, since TLS may hold decrypted bytes), write what callers
///    queued, and `poll` the socket (`CURLINFO_ACTIVESOCKET`) and the channel's wake pipe. When
///    the queue is full the socket is not polled for input, so the kernel's buffers fill and
///    TCP holds the peer back; memory does not grow.
///
/// The thread ends when the close handshake is done and flushed, on a failure, when the peer
/// closes TCP, or at the close timeout; it then answers every waiting caller.
enum WebSocketCurlIO {
    static let readChunk = 64 * 1024
    static let maximumHeadSize = 16 * 1024

    static func start(_ request: WebSocketConnectRequest, channel: WebSocketChannel) {
        let thread = Thread { run(request, channel: channel) }
        thread.name = "AsyncNetworking.WebSocket"
        thread.start()
    }

    private static func run(_ request: WebSocketConnectRequest, channel: WebSocketChannel) {
        var failure: NetworkingError?
        var errorBuffer = [CChar](repeating: 0, count: Int(ANCURL_ERROR_SIZE))
        guard let easy = ancurl_easy_init() else {
            channel.update { $0.finishTransport(NetworkingError(.transport(.resourceUnavailable), "curl_easy_init failed")) }
            return
        }
        var caFile: String?
        defer {
            ancurl_easy_cleanup(easy)
            if let caFile { unlink(caFile) }
            channel.update { $0.finishTransport(failure) }
        }
        do throws(NetworkingError) {
            let deadline = ContinuousClock.now + request.options.handshakeTimeout
            try errorBuffer.withUnsafeMutableBufferPointer { buffer throws(NetworkingError) in
                caFile = try configure(easy, request, errorBuffer: buffer.baseAddress!)
                let code = an_ws_curl_perform(UnsafeMutableRawPointer(easy))
                guard code == 0 else {
                    let message = String(cString: buffer.baseAddress!)
                    // Classified as for HTTP: a failure at the proxy (a CONNECT answered 407, a
                    // proxy that cannot be resolved or reached) is proxyFailed; TLS failures are
                    // serverTrustFailed with its reason, clientIdentityFailed or
                    // clientCertificateRejected; others are transport errors.
                    var connectCode = 0
                    _ = ancurl_easy_getinfo_long(easy, ANCURLINFO_HTTP_CONNECTCODE, &connectCode)
                    if let proxyError = CurlProxyFailure.error(code: code, message: message, connectCode: connectCode, proxy: request.proxy, url: request.url) {
                        throw proxyError
                    }
                    if request.url.scheme?.lowercased() == "https",
                       let tlsError = NetworkingError.tls(code: code, message: message, host: request.url.host ?? "", policy: request.policy) {
                        throw tlsError
                    }
                    throw curlError(code, buffer.baseAddress!, connecting: request.url)
                }
            }
            if let evaluator = request.tls.serverTrustEvaluator, request.url.scheme?.lowercased() == "https" {
                try checkServerTrust(easy, request, evaluator: evaluator, channel: channel)
            }
            let socket = an_ws_curl_active_socket(UnsafeMutableRawPointer(easy))
            guard socket >= 0 else { throw NetworkingError(.transport(.networkConnectionLost), "the connection has no socket") }
            var connection = Connection(easy: easy, socket: socket, channel: channel)
            try connection.openingHandshake(request, deadline: deadline)
            try connection.loop()
        } catch {
            failure = error
        }
    }

    /// Asks the policy's ``ServerTrustEvaluator`` about the new TLS connection, as HTTP
    /// transfers do from `CURLOPT_PREREQFUNCTION`: after the handshake and curl's own checks
    /// (chain, host name, pins), before any byte of the opening handshake is written. This
    /// thread is the connection's own, so it waits (up to the evaluator's timeout; a cancel of
    /// the connecting task ends the wait at once). A refusal closes the connection unused.
    private static func checkServerTrust(
        _ easy: OpaquePointer, _ request: WebSocketConnectRequest, evaluator: ServerTrustEvaluator, channel: WebSocketChannel
    ) throws(NetworkingError) {
        let host = request.url.host ?? ""
        guard let chain = CurlServerTrustGate.presentedChain(of: easy) else {
            throw NetworkingError.serverTrustRejected(host: host, reason: .invalidChain)
        }
        let context = ServerTrustContext(host: host, port: request.url.port ?? 443, certificateChain: chain)
        let wait = CurlTrustWait()
        let abandoned = channel.state.withLock { state -> Bool in
            guard state.phase == .connecting else { return true }
            state.trustWait = wait
            return false
        }
        if abandoned { throw NetworkingError(.cancelled, "the WebSocket was cancelled while connecting") }
        wait.start(evaluator, context)
        let outcome = wait.wait(timeout: evaluator.timeout)
        channel.state.withLock { $0.trustWait = nil }
        switch outcome {
        case .decided(.accept): return
        case .decided(.reject): throw NetworkingError.serverTrustRejected(host: host, reason: .rejectedByEvaluator)
        case .timedOut: throw NetworkingError.serverTrustRejected(host: host, reason: .evaluatorTimedOut)
        case .cancelled: throw NetworkingError(.cancelled, "the WebSocket was cancelled while its server trust was evaluated")
        }
    }

    private static func configure(_ easy: OpaquePointer, _ request: WebSocketConnectRequest, errorBuffer: UnsafeMutablePointer<CChar>) throws(NetworkingError) -> String? {
        func check(_ code: Int32, _ what: String) throws(NetworkingError) {
            guard code != 0 else { return }
            let reason = ancurl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code)"
            throw NetworkingError(.transport(.resourceUnavailable), "curl_easy_setopt \(what) failed: \(reason)")
        }
        func set(_ option: Int32, _ value: Int) throws(NetworkingError) { try check(ancurl_easy_setopt_long(easy, option, value), "\(option)") }
        func set(_ option: Int32, _ value: String) throws(NetworkingError) { try check(ancurl_easy_setopt_ptr(easy, option, value), "\(option)") }
        try set(ANCURLOPT_URL, request.url.absoluteString)
        try check(ancurl_easy_setopt_ptr(easy, ANCURLOPT_ERRORBUFFER, errorBuffer), "ERRORBUFFER")
        try set(AN_WS_CURLOPT_CONNECT_ONLY, 1)
        try set(ANCURLOPT_NOSIGNAL, 1)
        try set(ANCURLOPT_TCP_NODELAY, 1)
        // The manager's proxy, as for HTTP (credentials to the proxy only); through an HTTP proxy
        // a CONNECT tunnel carries the WebSocket.
        var proxyOptions = CurlTransferOptions()
        proxyOptions.proxy = request.proxy
        proxyOptions.usesEnvironmentProxy = request.usesEnvironmentProxy
        do {
            try CurlProxyOptions.apply(proxyOptions, to: easy)
        } catch {
            throw NetworkingError(.proxyUnsupported, "the proxy cannot be set: \(error.message)")
        }
        try set(ANCURLOPT_HTTPPROXYTUNNEL, 1)
        if ancurl_easy_setopt_ptr(easy, ANCURLOPT_PROTOCOLS_STR, "http,https") != 0 {
            try set(ANCURLOPT_PROTOCOLS, Int(ANCURLPROTO_HTTP | ANCURLPROTO_HTTPS))
        }
        try set(ANCURLOPT_HTTP_VERSION, Int(ANCURL_HTTP_VERSION_1_1)) // ALPN http/1.1: the upgrade is HTTP/1.1's
        try set(ANCURLOPT_CONNECTTIMEOUT_MS, max(1, Int(SafeTime.milliseconds(request.options.handshakeTimeout))))
        let tls = request.tls
        if !tls.verifiesPeer { try set(ANCURLOPT_SSL_VERIFYPEER, 0) }
        if !tls.verifiesHost { try set(ANCURLOPT_SSL_VERIFYHOST, 0) }
        var caFile: String?
        if let roots = tls.trustedRootsPEM {
            let code = roots.withUnsafeBytes { ancurl_easy_setopt_blob(easy, ANCURLOPT_CAINFO_BLOB, $0.baseAddress, $0.count) }
            if code == ANCURLE_UNKNOWN_OPTION || code == ANCURLE_NOT_BUILT_IN {
                let path = NSTemporaryDirectory() + "/asyncnetworking-ws-ca-\(UUID().uuidString).pem"
                guard FileManager.default.createFile(atPath: path, contents: roots, attributes: [.posixPermissions: 0o600]) else {
                    throw NetworkingError(.invalidCertificate, "cannot write the CA file \(path)")
                }
                caFile = path
                try set(ANCURLOPT_CAINFO, path)
            } else {
                try check(code, "CAINFO_BLOB")
            }
            try check(ancurl_easy_setopt_ptr(easy, ANCURLOPT_CAPATH, nil), "CAPATH")
        }
        if let pins = tls.pinnedPublicKeys { try set(ANCURLOPT_PINNEDPUBLICKEY, pins) }
        if let certificate = tls.clientCertificatePath {
            try set(ANCURLOPT_SSLCERT, certificate)
            try set(ANCURLOPT_SSLCERTTYPE, "PEM")
        }
        if let key = tls.clientKeyPath {
            try set(ANCURLOPT_SSLKEY, key)
            try set(ANCURLOPT_SSLKEYTYPE, "PEM")
        }
        if let passphrase = tls.keyPassphrase { try set(ANCURLOPT_KEYPASSWD, passphrase) }
        if tls.isolatesConnection { try set(ANCURLOPT_SSL_SESSIONID_CACHE, 0) }
        // The presented chain, for the server-trust evaluator (CURLINFO_CERTINFO).
        if tls.serverTrustEvaluator != nil { try set(ANCURLOPT_CERTINFO, 1) }
        return caFile
    }

    static func curlError(_ code: Int32, _ buffer: UnsafePointer<CChar>?, connecting url: URL?) -> NetworkingError {
        var detail = buffer.map { String(cString: $0) } ?? ""
        if detail.isEmpty { detail = ancurl_easy_strerror(code).map { String(cString: $0) } ?? "CURLcode \(code)" }
        let urlCode = CurlErrorMapping.urlErrorCode(for: code) ?? .unknown
        let host = url?.host.map { " to \($0)" } ?? ""
        return NetworkingError(.transport(urlCode), "the WebSocket connection\(host) failed: \(detail) (CURLcode \(code))")
    }
}

/// The open connection's loop state (on the I/O thread only).
private struct Connection {
    let easy: OpaquePointer
    let socket: Int32
    let channel: WebSocketChannel
    var readBuffer = [UInt8](repeating: 0, count: WebSocketCurlIO.readChunk)
    var writing: [UInt8] = []
    var writeOffset = 0

    init(easy: OpaquePointer, socket: Int32, channel: WebSocketChannel) {
        self.easy = easy
        self.socket = socket
        self.channel = channel
    }

    private var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(easy) }

    /// Whether a caller gave up on the connection before it opened.
    private var isAbandoned: Bool { channel.state.withLock { $0.phase == .finished } }

    // MARK: opening handshake

    mutating func openingHandshake(_ request: WebSocketConnectRequest, deadline: ContinuousClock.Instant) throws(NetworkingError) {
        let bytes = request.handshake.requestBytes
        var offset = 0
        while offset < bytes.count {
            if isAbandoned { throw NetworkingError(.cancelled, "the WebSocket was cancelled while connecting") }
            var sent = 0
            let code = bytes.withUnsafeBytes { an_ws_curl_send(raw, $0.baseAddress! + offset, $0.count - offset, &sent) }
            if code == AN_WS_CURLE_AGAIN {
                try wait(POLLOUT, until: deadline)
            } else if code != 0 {
                throw WebSocketCurlIO.curlError(code, nil, connecting: request.url)
            } else {
                offset += sent
            }
        }
        var head: [UInt8] = []
        var end: Int?
        while end == nil {
            if isAbandoned { throw NetworkingError(.cancelled, "the WebSocket was cancelled while connecting") }
            var received = 0
            let raw = self.raw
            let code = readBuffer.withUnsafeMutableBytes { an_ws_curl_recv(raw, $0.baseAddress, $0.count, &received) }
            if code == AN_WS_CURLE_AGAIN {
                try wait(POLLIN, until: deadline)
                continue
            }
            if code != 0 { throw WebSocketCurlIO.curlError(code, nil, connecting: request.url) }
            if received == 0 { throw NetworkingError(.transport(.badServerResponse), "the server closed the connection before answering the WebSocket handshake") }
            head += readBuffer[0..<received]
            end = WebSocketHandshake.headEnd(in: head)
            if end == nil, head.count > WebSocketCurlIO.maximumHeadSize {
                throw NetworkingError(.webSocketHandshakeFailed, "the handshake response head is over \(WebSocketCurlIO.maximumHeadSize) bytes")
            }
        }
        let headEnd = end!
        let outcome: WebSocketHandshake.Outcome
        switch request.handshake.validate(head: Array(head[0..<(headEnd - 4)])) {
        case .success(let accepted): outcome = accepted
        case .failure(let error):
            let fields = error.challenge.map { ["WWW-Authenticate": $0] }
            let response = error.status.map { HTTPURLResponse(url: request.url, statusCode: $0, httpVersion: "HTTP/1.1", headerFields: fields) } ?? nil
            throw NetworkingError(.webSocketHandshakeFailed, "the WebSocket handshake was refused: \(error.message)", response: response)
        }
        if outcome.deflate != nil, an_ws_zlib_available() == 0 {
            throw NetworkingError(.webSocketHandshakeFailed, "permessage-deflate was negotiated but libz.so.1 cannot be loaded")
        }
        let leftover = Array(head[headEnd...])
        let options = request.options
        channel.update { state in
            guard state.phase == .connecting else { return [] }
            state.phase = .open
            state.handshake = outcome
            var machine = WebSocketConnectionMachine(maximumMessageSize: options.maximumMessageSize, deflate: outcome.deflate)
            let events = leftover.isEmpty ? [] : machine.receive(leftover)
            state.machine = machine
            var resumptions: [WebSocketResumption] = []
            if let opener = state.opener {
                state.opener = nil
                resumptions.append { opener.resume(returning: .success(())) }
            }
            return resumptions + state.apply(events)
        }
        if isAbandoned { throw NetworkingError(.cancelled, "the WebSocket was cancelled while connecting") }
    }

    /// Polls the socket for `events` (and the wake pipe) until `deadline`.
    private func wait(_ events: Int32, until deadline: ContinuousClock.Instant) throws(NetworkingError) {
        let remaining = deadline - .now
        guard remaining > .zero else { throw NetworkingError(.transport(.timedOut), "the WebSocket handshake timed out") }
        var fds = [pollfd(fd: socket, events: Int16(events), revents: 0), pollfd(fd: channel.wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, Int32(clamping: max(1, SafeTime.milliseconds(remaining))))
        drainWakePipe()
    }

    private func drainWakePipe() {
        var sink = [UInt8](repeating: 0, count: 64)
        while read(channel.wakeRead, &sink, sink.count) > 0 {}
    }

    // MARK: open connection

    mutating func loop() throws(NetworkingError) {
        while true {
            let readBlocked = try readAvailable()
            let writeBlocked = try writeQueued()
            // readPaused is set under the same lock as the decision to poll without POLLIN: a
            // reader that frees room after this sees it and wakes the thread.
            let (done, deadline, wantsInput) = channel.state.withLock { state in
                state.readPaused = !state.wantsInput
                return (state.isProtocolDone || state.phase == .finished, state.closeDeadline, state.wantsInput)
            }
            if done, writeOffset == writing.count, !channel.state.withLock({ $0.hasOutput }) { return }
            if let deadline, ContinuousClock.now >= deadline {
                throw NetworkingError(.transport(.timedOut), "the peer did not complete the WebSocket close handshake in time")
            }
            var events: Int32 = 0
            if readBlocked, wantsInput { events |= Int32(POLLIN) }
            if writeBlocked { events |= Int32(POLLOUT) }
            var timeout: Int32 = -1
            if let deadline { timeout = Int32(clamping: max(1, SafeTime.milliseconds(deadline - .now))) }
            if wantsInput, !readBlocked { timeout = 0 } // more to read: go round now
            // With nothing to wait for on the socket it is left out (fd -1): a hung-up socket
            // would otherwise report POLLHUP at once, again and again, while the reader is behind.
            var fds = [pollfd(fd: events == 0 ? -1 : socket, events: Int16(events), revents: 0), pollfd(fd: channel.wakeRead, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 2, timeout)
            if fds[1].revents != 0 { drainWakePipe() }
        }
    }

    /// Reads while the queue has room; `true` when the socket had nothing more (`CURLE_AGAIN`).
    private mutating func readAvailable() throws(NetworkingError) -> Bool {
        for _ in 0..<16 {
            let wants = channel.state.withLock { state in
                state.readPaused = !state.wantsInput
                return state.wantsInput
            }
            guard wants else { return false }
            var received = 0
            let raw = self.raw
            let code = readBuffer.withUnsafeMutableBytes { an_ws_curl_recv(raw, $0.baseAddress, $0.count, &received) }
            if code == AN_WS_CURLE_AGAIN { return true }
            if code != 0 { throw WebSocketCurlIO.curlError(code, nil, connecting: nil) }
            if received == 0 {
                if channel.state.withLock({ $0.isProtocolDone }) { return true }
                throw NetworkingError(.transport(.networkConnectionLost), "the peer closed the WebSocket connection without a close frame (1006)")
            }
            let chunk = readBuffer
            channel.update { state in
                guard var machine = state.machine else { return [] }
                let events = chunk.withUnsafeBytes { machine.receive(UnsafeRawBufferPointer(rebasing: $0[0..<received])) }
                state.machine = machine
                return state.apply(events)
            }
        }
        return false
    }

    /// Writes queued frames; `true` when the socket could take no more (`CURLE_AGAIN`).
    private mutating func writeQueued() throws(NetworkingError) -> Bool {
        while true {
            if writeOffset == writing.count {
                var next: [UInt8] = []
                channel.update { state in
                    let (bytes, resumptions) = state.takeOutput()
                    next = bytes
                    return resumptions
                }
                writing = next
                writeOffset = 0
                if writing.isEmpty { return false }
            }
            var sent = 0
            let offset = writeOffset
            let code = writing.withUnsafeBytes { an_ws_curl_send(raw, $0.baseAddress! + offset, $0.count - offset, &sent) }
            if code == AN_WS_CURLE_AGAIN { return true }
            if code != 0 { throw WebSocketCurlIO.curlError(code, nil, connecting: nil) }
            writeOffset += sent
            let written = writeOffset
            channel.update { $0.wrote(upTo: written) }
        }
    }
}
#endif
