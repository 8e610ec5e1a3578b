import Foundation

extension SessionManager {
    /// Routes the transfers started from now on as `configuration` says: the environment's proxies
    /// (the default), no proxy (``ProxyConfiguration/direct``), or explicit proxies with their
    /// credentials and exclusions. Running transfers keep their route. See <doc:Proxies>.
    ///
    /// The manager's ``SecurityPolicy`` applies to the origin a `CONNECT` or SOCKS5 tunnel reaches,
    /// never to the proxy; proxy credentials go to the proxy only; redirects are followed by the
    /// Session layer, and each redirect's URL is routed (and checked against the exclusions) anew.
    ///
    /// - Throws: ``NetworkingError/Kind/proxyUnsupported`` on the URLSession transport for
    ///   anything but ``ProxyConfiguration/environment``: FoundationNetworking on Linux does not
    ///   read `URLSessionConfiguration.connectionProxyDictionary`, so it cannot be routed per
    ///   manager (the environment variables still apply to it as libcurl reads them).
    public func setProxy(_ configuration: ProxyConfiguration) throws(NetworkingError) {
        if case .urlSession = engine, configuration.mode != .environment {
            throw NetworkingError(
                .proxyUnsupported,
                "the URLSession transport takes only ProxyConfiguration.environment (FoundationNetworking ignores connectionProxyDictionary); use the curl transport"
            )
        }
        proxy = configuration
    }

    /// The HTTP proxy the transfer's current attempt went through, when the manager knows it: the
    /// explicit proxy curl was given, or — with ``ProxyConfiguration/environment`` — the one the
    /// environment names for the attempt's URL. `nil` for a direct attempt, a SOCKS5 proxy, and on
    /// URLSession and stubs (whose routes the manager does not choose). A 407's protection space.
    func proxyRoute(of state: TransferState) -> ProxyServer? {
        #if os(Linux) && canImport(CCurlShim)
        guard let attempt = state.task as? CurlAttempt else { return nil }
        let route = attempt.proxy ?? (attempt.usesEnvironmentProxy ? environmentProxy(for: attempt.url) : nil)
        return route?.kind == .http ? route : nil
        #else
        return nil
        #endif
    }

    /// The proxy the process environment names for `url`, by curl's rules
    /// (``ProxyConfiguration/fromEnvironment(_:)``), or `nil`.
    nonisolated func environmentProxy(for url: URL) -> ProxyServer? {
        ProxyConfiguration.fromEnvironment().server(for: url)
    }
}
