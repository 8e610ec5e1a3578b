extension HTTPClient {
    /// Opens a WebSocket at `url` resolved against ``baseURL`` (an `http`/`https` base gives a
    /// `ws`/`wss` connection), with ``defaultHeaders`` overridden by `headers` on the handshake
    /// request; otherwise as ``SessionManager/webSocket(to:protocols:headers:options:)`` on
    /// ``manager`` (its security policy, proxies, limits and errors).
    ///
    /// - Parameters:
    ///   - url: an absolute `ws`/`wss`/`http`/`https` URL, or a path relative to ``baseURL``.
    ///   - protocols: subprotocols to offer, in order of preference. Default none.
    ///   - headers: extra handshake fields, winning over ``defaultHeaders``. Default none.
    ///   - options: see ``WebSocketOptions``.
    ///
    /// Suspends until the opening handshake is done; cancellation throws `.cancelled`.
    public func webSocket(
        _ url: some URLConvertible, protocols: [String] = [], headers: HTTPHeaders = [:], options: WebSocketOptions = WebSocketOptions()
    ) async throws(NetworkingError) -> WebSocket {
        let resolved = try url.resolved(against: baseURL)
        var fields = defaultHeaders.merging(headers).dictionary
        for name in fields.keys where WebSocketHandshake.reservedHeaderNames.contains(name.lowercased()) && headers[name] == nil {
            fields[name] = nil // a default the handshake owns is left out; a caller's own is refused
        }
        return try await manager.webSocket(to: resolved, protocols: protocols, headers: fields, options: options)
    }
}
