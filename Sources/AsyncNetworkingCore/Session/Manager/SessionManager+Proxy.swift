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
}
