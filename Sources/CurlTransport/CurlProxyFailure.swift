#if os(Linux) && canImport(CCurlShim)
import CCurlShim
import Foundation

/// Recognises a curl completion that failed at the proxy (``NetworkingError/Kind/proxyFailed``):
/// `CURLE_COULDNT_RESOLVE_PROXY` (also curl's "Unsupported proxy syntax" for a proxy variable it
/// cannot parse), `CURLE_PROXY` (a SOCKS5 handshake failure), a `CONNECT` answered with a non-2xx
/// status (`CURLINFO_HTTP_CONNECTCODE`, whatever the curl code), `CURLE_COULDNT_CONNECT` with
/// curl's "Unsupported proxy scheme", or — with an explicit proxy, to which curl makes the only
/// connection — any `CURLE_COULDNT_CONNECT`.
/// With the environment's proxies a refused connection stays a transport error: curl does not
/// say whether the proxy or the origin refused it.
///
/// The one place this is decided, for every connection kind curl makes: HTTP transfers
/// (``error(of:proxy:url:)``) and WebSocket connections (``error(code:message:connectCode:proxy:url:)``,
/// whose `CONNECT_ONLY` handle has no ``CurlCompletion``), so the same failure at the proxy is the
/// same error on both.
package enum CurlProxyFailure {
    package static func error(of completion: CurlCompletion, proxy: ProxyServer?, url: URL) -> NetworkingError? {
        error(code: completion.code, message: completion.message, connectCode: completion.metrics.proxyConnectCode, proxy: proxy, url: url)
    }

    /// The same decision from a `CURLcode`, curl's error text and `CURLINFO_HTTP_CONNECTCODE`.
    package static func error(code: Int32, message: String, connectCode: Int, proxy: ProxyServer?, url: URL) -> NetworkingError? {
        let reason: String
        switch code {
        case ANCURLE_COULDNT_RESOLVE_PROXY where message.hasPrefix("Unsupported proxy"):
            reason = "the proxy's URL could not be parsed"
        case ANCURLE_COULDNT_RESOLVE_PROXY:
            reason = "the proxy's host name could not be resolved"
        case ANCURLE_COULDNT_CONNECT where message.hasPrefix("Unsupported proxy scheme"):
            reason = "the proxy's scheme is not supported" // an environment variable curl read
        case ANCURLE_PROXY:
            reason = "the SOCKS5 handshake failed"
        case _ where connectCode != 0 && !(200..<300).contains(connectCode):
            reason = "the proxy answered CONNECT with \(connectCode)"
        case ANCURLE_COULDNT_CONNECT where proxy != nil:
            reason = "the proxy refused the connection or could not be reached"
        default:
            return nil
        }
        let through = proxy.map { " \($0)" } ?? ""
        let detail = message.isEmpty ? "" : " (\(message))"
        var userInfo: [String: Any] = [NSURLErrorFailingURLErrorKey: url]
        userInfo[NSLocalizedDescriptionKey] = message
        return NetworkingError(
            .proxyFailed, "proxy\(through): \(reason) before \(url.host ?? "the origin") was reached\(detail)",
            underlyingError: URLError(CurlErrorMapping.urlErrorCode(for: code) ?? .unknown, userInfo: userInfo)
        )
    }
}
#endif
