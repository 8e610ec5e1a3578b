import Foundation

/// How a ``SessionManager``'s transfers reach the network: through the proxies the environment
/// names (the default), directly, or through proxies given here. Set it with
/// ``SessionManager/setProxy(_:)``; see <doc:Proxies>.
///
/// ```swift
/// let manager = SessionManager()
/// try await manager.setProxy(.through(.http(host: "proxy.internal", port: 3128,
///                                               credential: ProxyCredential(user: "me", password: "secret")),
///                                      exclusions: ["localhost", ".corp.example"]))
/// ```
///
/// - A ``ProxyServer/Kind/http`` proxy carries `http://` requests in absolute form
///   (`GET http://origin/path`) and `https://` ones through a `CONNECT` tunnel: TLS runs end to end
///   with the origin, and the manager's ``SecurityPolicy`` (roots, pins, client identity) applies to
///   the origin, never to the proxy.
/// - A ``ProxyServer/Kind/socks5`` proxy (`socks5h`: the proxy resolves the host name) tunnels both.
/// - Proxy credentials go to the proxy only (`Proxy-Authorization` on the proxy's hop, or the SOCKS5
///   user/password exchange): they are not request headers, so no origin ever sees them, and the
///   Session layer's redirect and credential rules are unchanged.
public struct ProxyConfiguration: Sendable, Hashable {
    /// Where the configuration comes from.
    public enum Mode: Sendable, Hashable {
        /// The process environment, read by libcurl at each transfer with curl's rules
        /// (`http_proxy` — lowercase only —, `HTTPS_PROXY`/`https_proxy`, `ALL_PROXY`/`all_proxy`,
        /// `NO_PROXY`/`no_proxy`); ``ProxyConfiguration/fromEnvironment(_:)`` applies the same
        /// rules to a dictionary.
        case environment
        /// No proxy at all, whatever the environment says.
        case direct
        /// ``ProxyConfiguration/httpProxy``, ``ProxyConfiguration/httpsProxy`` and
        /// ``ProxyConfiguration/exclusions``; the environment is not read.
        case explicit
    }

    /// Where the configuration comes from.
    public var mode: Mode
    /// The proxy for `http://` URLs (``Mode/explicit`` only); `nil`: direct.
    public var httpProxy: ProxyServer?
    /// The proxy for `https://` URLs (``Mode/explicit`` only); `nil`: direct.
    public var httpsProxy: ProxyServer?
    /// Hosts reached directly (``Mode/explicit`` only), in curl's `NO_PROXY` syntax: a host name
    /// matches itself and its subdomains (`example.com` and `.example.com` both match
    /// `api.example.com`), an IP address matches itself, `*` matches every host. Case-insensitive.
    public var exclusions: [String]
    /// What ``fromEnvironment(_:)`` could not use, by URL scheme (`"http"`, `"https"`): the name
    /// of the environment variable whose value names no proxy this library can speak — it does not
    /// parse as a proxy URL (curl refuses it too: "Unsupported proxy syntax"), or it names an
    /// `https://` (TLS to the proxy), SOCKS4 or other proxy. A request of that scheme fails with
    /// ``NetworkingError/Kind/proxyUnsupported`` naming the variable (``refusal(for:)``) — never
    /// sent directly, since the environment made a proxy mandatory — unless its host is excluded
    /// or you set the scheme's proxy (``httpProxy``, ``httpsProxy``) yourself. Empty for every other
    /// configuration.
    public var unusableEnvironmentProxies: [String: String] = [:]

    /// Creates an explicit configuration: each scheme through its own proxy (`nil`: direct).
    public init(httpProxy: ProxyServer?, httpsProxy: ProxyServer?, exclusions: [String] = []) {
        self.mode = .explicit
        self.httpProxy = httpProxy
        self.httpsProxy = httpsProxy
        self.exclusions = exclusions
    }

    private init(mode: Mode) {
        self.mode = mode
        self.httpProxy = nil
        self.httpsProxy = nil
        self.exclusions = []
    }

    /// The environment's proxies, as libcurl reads them (the default). See ``Mode/environment``.
    public static let environment = ProxyConfiguration(mode: .environment)

    /// No proxy, whatever the environment says.
    public static let direct = ProxyConfiguration(mode: .direct)

    /// Every `http://` and `https://` URL through `server`, except the `exclusions`.
    public static func through(_ server: ProxyServer, exclusions: [String] = []) -> ProxyConfiguration {
        ProxyConfiguration(httpProxy: server, httpsProxy: server, exclusions: exclusions)
    }

    /// An explicit configuration made from `environment` with curl's rules: `http://` URLs use
    /// `http_proxy` (lowercase only: curl ignores `HTTP_PROXY`, which a CGI request can set),
    /// `https://` URLs use `https_proxy` or `HTTPS_PROXY`; either falls back to `all_proxy` or
    /// `ALL_PROXY`; `no_proxy` or `NO_PROXY` gives the exclusions (lowercase wins over uppercase);
    /// an empty value is unset. A value without a scheme is an HTTP proxy; `socks5h://` and
    /// `socks5://` are SOCKS5.
    ///
    /// A value that is set but names no proxy this library can use — unparsable (curl fails such
    /// a request too), or an `https://`, SOCKS4 or other proxy — is not dropped: the scheme is
    /// listed in ``unusableEnvironmentProxies`` with the variable's name, and its requests fail
    /// with ``NetworkingError/Kind/proxyUnsupported`` rather than go direct (as curl fails closed).
    /// The variable that is set decides: an unusable `http_proxy` is not replaced by `all_proxy`.
    /// (``environment`` leaves the variables to libcurl, which reads them itself.)
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> ProxyConfiguration {
        func variable(_ names: String...) -> String? {
            names.first { environment[$0].map { !$0.isEmpty } ?? false }
        }
        let all = variable("all_proxy", "ALL_PROXY")
        var configuration = ProxyConfiguration(httpProxy: nil, httpsProxy: nil)
        for scheme in ["http", "https"] {
            let names = scheme == "http" ? variable("http_proxy") : variable("https_proxy", "HTTPS_PROXY")
            guard let name = names ?? all, let value = environment[name] else { continue }
            guard let server = ProxyServer(url: value) else {
                configuration.unusableEnvironmentProxies[scheme] = name
                continue
            }
            if scheme == "http" { configuration.httpProxy = server } else { configuration.httpsProxy = server }
        }
        configuration.exclusions = (variable("no_proxy", "NO_PROXY").flatMap { environment[$0] } ?? "")
            .split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        return configuration
    }

    /// Why a request for `url` must not be sent at all: its scheme's proxy came from an environment
    /// variable this library could not use (``unusableEnvironmentProxies``), its host is not
    /// excluded, and no proxy was set for the scheme since. The error is
    /// ``NetworkingError/Kind/proxyUnsupported`` and names the variable, never its value (which may
    /// hold a password). `nil` when the request may go (through its proxy, or directly).
    public func refusal(for url: URL) -> NetworkingError? {
        guard mode == .explicit, let scheme = url.scheme?.lowercased(), let name = unusableEnvironmentProxies[scheme],
              let host = url.host?.lowercased() else { return nil }
        let server = scheme == "http" ? httpProxy : httpsProxy
        guard server == nil, !isExcluded(host) else { return nil }
        return NetworkingError(
            .proxyUnsupported,
            "the environment variable \(name) names no proxy this library can use (it does not parse as a proxy URL, or it names an https://, SOCKS4 or other proxy): \(scheme) requests are refused rather than sent directly; fix \(name)"
        )
    }

    /// The proxy an explicit configuration uses for `url`: by scheme, `nil` for an excluded host
    /// or another scheme. Always `nil` for ``Mode/direct``, and for ``Mode/environment`` (libcurl
    /// decides then).
    public func server(for url: URL) -> ProxyServer? {
        guard mode == .explicit, let host = url.host?.lowercased() else { return nil }
        let server: ProxyServer? = switch url.scheme?.lowercased() {
        case "http": httpProxy
        case "https": httpsProxy
        default: nil
        }
        guard let server, !isExcluded(host) else { return nil }
        return server
    }

    /// Whether `host` matches one of the ``exclusions`` (curl's `NO_PROXY` rules).
    public func isExcluded(_ host: String) -> Bool {
        let host = Self.bare(host.lowercased())
        return exclusions.contains { entry in
            var pattern = Self.bare(entry.trimmingCharacters(in: .whitespaces).lowercased())
            if pattern == "*" { return true }
            if pattern.hasPrefix(".") { pattern.removeFirst() }
            if pattern.hasSuffix(".") { pattern.removeLast() }
            guard !pattern.isEmpty else { return false }
            return host == pattern || host.hasSuffix("." + pattern)
        }
    }

    /// `host` without IPv6 brackets and a trailing dot.
    private static func bare(_ host: String) -> String {
        var host = Substring(host)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        if host.count > 1, host.hasSuffix("."), !host.hasSuffix("..") { host = host.dropLast() }
        return String(host)
    }
}

/// One proxy: its kind, address and optional credential.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The protocol spoken to the proxy.
    public enum Kind: Sendable, Hashable {
        /// An HTTP proxy: absolute-form requests for `http://` URLs, a `CONNECT` tunnel for
        /// `https://` URLs (always a tunnel with ``ProxyServer/tunnelsHTTP``).
        case http
        /// A SOCKS5 proxy that resolves host names itself (`socks5h`): the client sends the name.
        case socks5
        /// A SOCKS5 proxy given an address: the client resolves the host name (`socks5`).
        case socks5LocalResolution
    }

    /// The protocol spoken to the proxy.
    public var kind: Kind
    /// The proxy's host name or IP address.
    public var host: String
    /// The proxy's port.
    public var port: Int
    /// Sent to the proxy only (HTTP: `Proxy-Authorization: Basic`; SOCKS5: RFC 1929 user/password).
    public var credential: ProxyCredential?
    /// For ``Kind/http``: send `http://` requests through a `CONNECT` tunnel too (the proxy sees
    /// only the origin's host and port). Default `false`: absolute form, as browsers do.
    public var tunnelsHTTP: Bool

    /// Creates a proxy; see each property.
    public init(kind: Kind, host: String, port: Int, credential: ProxyCredential? = nil, tunnelsHTTP: Bool = false) {
        self.kind = kind
        self.host = host
        self.port = port
        self.credential = credential
        self.tunnelsHTTP = tunnelsHTTP
    }

    /// An HTTP proxy (absolute form for `http://`, `CONNECT` for `https://`).
    public static func http(host: String, port: Int, credential: ProxyCredential? = nil) -> ProxyServer {
        ProxyServer(kind: .http, host: host, port: port, credential: credential)
    }

    /// A SOCKS5 proxy that resolves host names itself (`socks5h`).
    public static func socks5(host: String, port: Int, credential: ProxyCredential? = nil) -> ProxyServer {
        ProxyServer(kind: .socks5, host: host, port: port, credential: credential)
    }

    /// A proxy from a URL as the environment gives it: `host:port`, `http://[user:password@]host[:port]`
    /// (port 1080 when absent, as curl), `socks5h://…` or `socks5://…`. `nil` for other schemes
    /// (`https://` and SOCKS4 proxies are not supported), a URL without a host, or a port outside
    /// 1–65535 (curl refuses those too).
    public init?(url text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme), let host = components.host, !host.isEmpty,
              (1...65_535).contains(components.port ?? 1080) else { return nil }
        let kind: Kind
        switch components.scheme?.lowercased() {
        case "http": kind = .http
        case "socks5h": kind = .socks5
        case "socks5": kind = .socks5LocalResolution
        default: return nil
        }
        let credential = components.user.map {
            ProxyCredential(user: $0.removingPercentEncoding ?? $0, password: components.password.map { $0.removingPercentEncoding ?? $0 } ?? "")
        }
        self.init(kind: kind, host: host, port: components.port ?? 1080, credential: credential)
    }

    /// The proxy's URL as curl takes it (`CURLOPT_PROXY`), without the credential:
    /// `http://host:port`, `socks5h://host:port` or `socks5://host:port`.
    public var url: String {
        let scheme = switch kind {
        case .http: "http"
        case .socks5: "socks5h"
        case .socks5LocalResolution: "socks5"
        }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed):\(port)"
    }

    /// ``url``, with `user@` when there is a credential (never the password).
    public var description: String {
        guard let user = credential?.user else { return url }
        return url.replacingOccurrences(of: "://", with: "://\(user)@")
    }
}

/// A user name and password for a proxy. Its description never shows the password.
public struct ProxyCredential: Sendable, Hashable, CustomStringConvertible {
    /// The user name.
    public var user: String
    /// The password.
    public var password: String

    /// Creates a credential.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// `user:<redacted>`.
    public var description: String { "\(user):<redacted>" }
}
