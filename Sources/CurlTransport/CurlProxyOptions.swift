#if os(Linux) && canImport(CCurlShim)
import CCurlShim

/// Sets an easy handle's proxy options from ``CurlTransferOptions/proxy`` and
/// ``CurlTransferOptions/usesEnvironmentProxy`` (loop thread, on a fresh or reset handle).
///
/// - A proxy: `CURLOPT_PROXY` (`http://`, `socks5h://` or `socks5://` host and port),
///   `CURLOPT_NOPROXY ""` (the environment's `no_proxy` is not read: exclusions were applied by
///   ``ProxyConfiguration/server(for:)`` before this transfer was made), the credential as
///   `CURLOPT_PROXYUSERNAME`/`CURLOPT_PROXYPASSWORD` with `CURLOPT_PROXYAUTH` Basic — curl sends
///   them to the proxy only (`Proxy-Authorization` on the proxy hop, or SOCKS5 user/password),
///   never inside a `CONNECT` tunnel — and `CURLOPT_HTTPPROXYTUNNEL` when asked.
/// - No proxy and no environment: `CURLOPT_PROXY ""` (curl then reads no variable).
/// - Otherwise nothing: libcurl reads `http_proxy`, `https_proxy`, `all_proxy`, `no_proxy` itself.
///
/// TLS options (`CURLOPT_CAINFO`, `CURLOPT_PINNEDPUBLICKEY`, …) apply to the origin through a
/// tunnel; the proxy options for an `https://` proxy (`CURLOPT_PROXY_*`) are never set, as such
/// proxies are not supported.
package enum CurlProxyOptions {
    package static func apply(_ options: CurlTransferOptions, to easy: OpaquePointer) throws(CurlConfigurationError) {
        guard let proxy = options.proxy else {
            if !options.usesEnvironmentProxy { try CurlEasyConfiguration.set(easy, ANCURLOPT_PROXY, string: "") }
            return
        }
        try CurlEasyConfiguration.set(easy, ANCURLOPT_PROXY, string: proxy.url)
        try CurlEasyConfiguration.set(easy, ANCURLOPT_NOPROXY, string: "")
        if let credential = proxy.credential {
            try CurlEasyConfiguration.set(easy, ANCURLOPT_PROXYUSERNAME, string: credential.user)
            try CurlEasyConfiguration.set(easy, ANCURLOPT_PROXYPASSWORD, string: credential.password)
            try CurlEasyConfiguration.set(easy, ANCURLOPT_PROXYAUTH, Int(ANCURLAUTH_BASIC))
        }
        if proxy.kind == .http, proxy.tunnelsHTTP { try CurlEasyConfiguration.set(easy, ANCURLOPT_HTTPPROXYTUNNEL, 1) }
    }
}
#endif
