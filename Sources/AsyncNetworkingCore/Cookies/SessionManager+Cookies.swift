import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The manager's ``CookieJar`` at work: the two places the Session layer calls, on every transport.
///
/// - Outgoing: ``addingCookies(to:for:)`` on the request each attempt sends (``launch(_:)``, and a
///   redirect URLSession follows itself) — never on ``TransferState/currentRequest``, so the redirect
///   rules and hooks see the caller's own headers only, and a redirect to another origin gets that
///   origin's cookies.
/// - Incoming: ``storeCookies(from:url:for:)`` on every final response head and every redirect
///   response, before the redirect is decided.
///
/// A request with a `Cookie` field of its own (from the request, the configuration's headers or an
/// adapter) is left alone: the jar adds nothing to it (its `Set-Cookie` are still stored). A
/// request with `httpShouldHandleCookies == false` neither sends nor stores jar cookies.
extension SessionManager {
    /// Creates a manager that keeps cookies in `cookieJar` (see ``CookieJar``); otherwise as
    /// ``init(configuration:maxConcurrentTransfers:transport:securityPolicy:http2:)``.
    ///
    /// Works on both transports. Leave the configuration's own cookie handling off
    /// (``defaultConfiguration()`` has it off): a `URLSessionConfiguration` with an
    /// `httpCookieStorage` would make URLSession keep and send cookies of its own as well.
    /// Several managers may share one jar.
    public init(
        configuration: URLSessionConfiguration = SessionManager.defaultConfiguration(),
        maxConcurrentTransfers: Int? = nil,
        transport: Transport = .platformDefault,
        securityPolicy: SecurityPolicy = .default,
        cookieJar: CookieJar
    ) {
        self.init(
            configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers, transport: transport,
            securityPolicy: securityPolicy, stubs: nil, cookieJar: cookieJar
        )
    }

    /// `request` with the jar's `Cookie` field for its URL, unless there is no jar, the request
    /// handles no cookies, or it has a `Cookie` field of its own.
    ///
    /// - Throws: ``NetworkingError/Kind/requestSerializationFailed`` when the field breaks the one
    ///   header rule (``HeaderFieldValidation``) — checked before it is set, since a `URLRequest`
    ///   drops a value with CR, LF or NUL without a word. A jar's own API refuses such cookies
    ///   (``CookieJar/insert(_:)``, its file), so this only guards the rule.
    func addingCookies(to request: URLRequest, for state: TransferState) throws(NetworkingError) -> URLRequest {
        try addingCookies(to: request, handlesCookies: state.originalRequest.httpShouldHandleCookies, reportedRequest: state.originalRequest)
    }

    /// `request` with the jar's `Cookie` field for its URL, unless there is no jar,
    /// `handlesCookies` is `false` (the caller's `httpShouldHandleCookies`), or the request has a
    /// `Cookie` field of its own. `reportedRequest` is the request an error names.
    func addingCookies(to request: URLRequest, handlesCookies: Bool, reportedRequest: URLRequest? = nil) throws(NetworkingError) -> URLRequest {
        guard let cookieJar, handlesCookies, let url = request.url,
              request.value(forHTTPHeaderField: "Cookie") == nil,
              let header = cookieJar.cookieHeader(for: url) else { return request }
        if let problem = HeaderFieldValidation.problem(name: "Cookie", value: header) {
            throw NetworkingError(.requestSerializationFailed, "the cookie jar's Cookie field: \(problem); nothing was sent", request: reportedRequest ?? request)
        }
        var withCookies = request
        withCookies.setValue(header, forHTTPHeaderField: "Cookie")
        return withCookies
    }

    /// Stores the `Set-Cookie` of a response head received for `url`.
    func storeCookies(from head: ResponseHead, url: URL?, for state: TransferState) {
        guard let cookieJar, state.originalRequest.httpShouldHandleCookies, let url else { return }
        var values = head.setCookies
        guard !values.isEmpty else { return }
        // Foundation joins repeated fields with ", ": split them again.
        if head.foundationResponse != nil { values = values.flatMap(SetCookieParser.splitCombined) }
        cookieJar.setCookies(fromSetCookieValues: values, for: url)
    }

    /// Stores the `Set-Cookie` of a redirect response URLSession reports before following it.
    func storeCookies(from response: HTTPURLResponse, for state: TransferState) {
        guard cookieJar != nil, let url = response.url ?? state.currentRequest.url else { return }
        storeCookies(from: ResponseHead(response), url: url, for: state)
    }
}
