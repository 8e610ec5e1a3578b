import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as a plain value, typed by the value its response decodes to (Get's `Request<Response>`).
///
/// Build one with the static helpers and send it with ``HTTPClient/send(_:decoder:progress:)``:
///
/// ```swift
/// let user = try await client.send(.get("users/42", as: User.self)).value
/// let made = try await client.send(.post("users", body: NewUser(name: "Ada"), as: User.self))
/// try await client.send(Request<Void>.delete("users/42"))          // no body expected
/// ```
///
/// A request holds what goes on the wire — method, path or URL, query, headers, body, timeout,
/// transfer and redirect options — plus per-request hooks (adapters, retry policy, validation,
/// a data pre-processor). It is `Sendable` and `Hashable`; equality and hashing compare what
/// goes on the wire and ignore ``hooks`` (closures have no equality). ``cURLDescription(baseURL:redacted:)``
/// prints it as a `curl` command, secrets redacted unless asked.
public struct Request<Value>: Sendable, Hashable, CustomStringConvertible {
    /// The method. Default ``HTTPMethod/get``.
    public var method: HTTPMethod
    /// Where the request goes: a path resolved against the client's base URL, or a URL.
    public var target: RequestTarget
    /// Query items appended to the target's own query, in order (a `nil` value writes `name`
    /// alone). Default none.
    public var query: [URLQueryItem]
    /// Headers; they override the client's ``HTTPClient/defaultHeaders``. Default none.
    public var headers: HTTPHeaders
    /// The body. Default ``RequestBody/none``.
    public var body: RequestBody
    /// This request's idle timeout in seconds, or `nil` for the client's
    /// ``HTTPClient/timeoutInterval`` (which says how it bounds retries).
    public var timeoutInterval: TimeInterval?
    /// This request's total deadline, or `nil` for the one in its ``transferOptions`` or the
    /// client's ``HTTPClient/deadline``. See ``RequestDeadline``.
    public var deadline: RequestDeadline?
    /// This request's transfer options, or `nil` for the client's ``HTTPClient/transferOptions``.
    public var transferOptions: TransferOptions?
    /// How this request follows redirects. Default ``RedirectPolicy/follow``.
    public var redirectPolicy: RedirectPolicy
    /// Adapters, retry policy, validation and pre-processing for this request only.
    /// Not compared by `==`.
    public var hooks: RequestHooks

    /// Creates a request; every argument but `target` has the default described on its property.
    public init(
        _ method: HTTPMethod = .get, _ target: RequestTarget, query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:], body: RequestBody = .none, as type: Value.Type = Value.self
    ) {
        self.method = method
        self.target = target
        self.query = query
        self.headers = headers
        self.body = body
        self.timeoutInterval = nil
        self.deadline = nil
        self.transferOptions = nil
        self.redirectPolicy = .follow
        self.hooks = RequestHooks()
    }

    /// Whether two requests would send the same thing (``hooks`` are not compared).
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.method == rhs.method && lhs.target == rhs.target && lhs.query == rhs.query
            && lhs.headers == rhs.headers && lhs.body == rhs.body && lhs.timeoutInterval == rhs.timeoutInterval
            && lhs.deadline == rhs.deadline && lhs.transferOptions == rhs.transferOptions && lhs.redirectPolicy == rhs.redirectPolicy
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(method)
        hasher.combine(target)
        hasher.combine(query)
        hasher.combine(headers)
        hasher.combine(body)
        hasher.combine(timeoutInterval)
        hasher.combine(deadline)
        hasher.combine(transferOptions)
        hasher.combine(redirectPolicy)
    }

    /// `METHOD target`, with query values and bare query components replaced by `…` (safe to log).
    public var description: String {
        let target: String = switch self.target {
        case .path(let path): Redaction.urlString(path)
        case .url(let url): CURLDescription.redactedURL(url)
        }
        let names = query.map { item in
            let (name, value) = Redaction.queryComponent(name: item.name, value: item.value)
            return value.isEmpty ? name : name + "=" + value
        }
        let separator = target.contains("?") ? "&" : "?"
        return "\(method.rawValue) \(target)" + (names.isEmpty ? "" : separator + names.joined(separator: "&"))
    }

    /// The same request decoding to another type (hooks kept).
    public func decoding<Other>(as type: Other.Type) -> Request<Other> {
        var other = Request<Other>(method, target, query: query, headers: headers, body: body)
        other.timeoutInterval = timeoutInterval
        other.deadline = deadline
        other.transferOptions = transferOptions
        other.redirectPolicy = redirectPolicy
        other.hooks = hooks
        return other
    }
}

/// Where a ``Request`` goes.
public enum RequestTarget: Sendable, Hashable, ExpressibleByStringLiteral {
    /// A path (or any URL reference) resolved against the client's base URL, RFC 3986 rules.
    case path(String)
    /// An absolute URL; the client's base URL is ignored.
    case url(URL)

    /// A ``path(_:)``.
    public init(stringLiteral value: String) { self = .path(value) }

    /// Resolves against `baseURL` (see ``URLConvertible``).
    func resolved(against baseURL: URL?) throws(NetworkingError) -> URL {
        switch self {
        case .path(let path): try path.resolved(against: baseURL)
        case .url(let url): try url.resolved(against: baseURL)
        }
    }
}

/// The per-request hooks of a ``Request``: run after the client's, in order.
public struct RequestHooks: Sendable {
    /// Adapters run after the client's ``PipelineConfiguration/adapters``, in order. Default none.
    public var adapters: [any RequestAdapter] = []
    /// Replaces the client's ``PipelineConfiguration/retryPolicy`` for this request when set.
    public var retryPolicy: (any RetryPolicy)?
    /// Extra validations, run in order on the (pre-processed) body before the response
    /// serializer: each sees the request as sent, the response and the body. Default none.
    public var validators: [ResponseValidator] = []
    /// Transforms the body before validation and decoding (for example to strip an XSSI prefix).
    public var dataPreprocessor: DataPreprocessor?

    /// No hooks.
    public init() {}
}

/// A custom validation: throw to refuse the response. See ``Request/validate(_:)``.
public typealias ResponseValidator = @Sendable (_ request: URLRequest, _ response: HTTPURLResponse, _ data: Data) throws -> Void
