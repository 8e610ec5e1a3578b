import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Something a ``Request`` can be addressed to: a `String` path or URL reference, a `URL`, or a
/// ``RequestTarget``.
public protocol RequestTargetConvertible: Sendable {
    /// The target.
    var requestTarget: RequestTarget { get }
}

extension String: RequestTargetConvertible {
    /// A ``RequestTarget/path(_:)``, resolved against the client's base URL.
    public var requestTarget: RequestTarget { .path(self) }
}

extension URL: RequestTargetConvertible {
    /// A ``RequestTarget/url(_:)`` (a relative URL still resolves against the base URL).
    public var requestTarget: RequestTarget { .url(self) }
}

extension RequestTarget: RequestTargetConvertible {
    /// Itself.
    public var requestTarget: RequestTarget { self }
}

/// The static helpers: `.get("users/42")`, `.post("users", body: NewUser(...))`.
extension Request {
    /// A `GET` of `target`; `query` is appended to its query.
    public static func get(
        _ target: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Request {
        Request(.get, target.requestTarget, query: query, headers: headers)
    }

    /// A `HEAD` of `target`.
    public static func head(
        _ target: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Request {
        Request(.head, target.requestTarget, query: query, headers: headers)
    }

    /// A `DELETE` of `target`.
    public static func delete(
        _ target: some RequestTargetConvertible, query: [URLQueryItem] = [], headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Request {
        Request(.delete, target.requestTarget, query: query, headers: headers)
    }

    /// A request of `method` to `target` with `body` (default none).
    public static func make(
        _ method: HTTPMethod, _ target: some RequestTargetConvertible, body: RequestBody = .none,
        query: [URLQueryItem] = [], headers: HTTPHeaders = [:], as type: Value.Type = Value.self
    ) -> Request {
        Request(method, target.requestTarget, query: query, headers: headers, body: body)
    }

    /// A `POST` of `body` (a ``RequestBody``: bytes, form, multipart; default none) to `target`.
    public static func post(
        _ target: some RequestTargetConvertible, body: RequestBody = .none, query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:], as type: Value.Type = Value.self
    ) -> Request {
        make(.post, target, body: body, query: query, headers: headers)
    }

    /// A `POST` of `body` encoded as JSON by `encoder` to `target`.
    public static func post(
        _ target: some RequestTargetConvertible, body: some Encodable, encoder: JSONEncoder = JSONEncoder(),
        query: [URLQueryItem] = [], headers: HTTPHeaders = [:], as type: Value.Type = Value.self
    ) -> Request {
        make(.post, target, body: .json(body, encoder: encoder), query: query, headers: headers)
    }

    /// A `PUT` of `body` (a ``RequestBody``) to `target`.
    public static func put(
        _ target: some RequestTargetConvertible, body: RequestBody = .none, query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:], as type: Value.Type = Value.self
    ) -> Request {
        make(.put, target, body: body, query: query, headers: headers)
    }

    /// A `PUT` of `body` encoded as JSON by `encoder` to `target`.
    public static func put(
        _ target: some RequestTargetConvertible, body: some Encodable, encoder: JSONEncoder = JSONEncoder(),
        query: [URLQueryItem] = [], headers: HTTPHeaders = [:], as type: Value.Type = Value.self
    ) -> Request {
        make(.put, target, body: .json(body, encoder: encoder), query: query, headers: headers)
    }

    /// A `PATCH` of `body` (a ``RequestBody``) to `target`.
    public static func patch(
        _ target: some RequestTargetConvertible, body: RequestBody = .none, query: [URLQueryItem] = [],
        headers: HTTPHeaders = [:], as type: Value.Type = Value.self
    ) -> Request {
        make(.patch, target, body: body, query: query, headers: headers)
    }

    /// A `PATCH` of `body` encoded as JSON by `encoder` to `target`.
    public static func patch(
        _ target: some RequestTargetConvertible, body: some Encodable, encoder: JSONEncoder = JSONEncoder(),
        query: [URLQueryItem] = [], headers: HTTPHeaders = [:], as type: Value.Type = Value.self
    ) -> Request {
        make(.patch, target, body: .json(body, encoder: encoder), query: query, headers: headers)
    }
}

/// Modifiers: each returns a copy.
extension Request {
    /// A copy with query item `name=value` appended.
    public func query(_ name: String, _ value: String?) -> Request {
        copying { $0.query.append(URLQueryItem(name: name, value: value)) }
    }

    /// A copy with header `name` set to `value` (`nil` removes it).
    public func header(_ name: String, _ value: String?) -> Request {
        copying { if let value { $0.headers.update(name: name, value: value) } else { $0.headers.remove(name: name) } }
    }

    /// A copy with this idle timeout in seconds (see ``HTTPClient/timeoutInterval``: without a
    /// ``deadline(_:)``, retries must start within it, so a timed-out attempt is not retried).
    public func timeout(_ seconds: TimeInterval) -> Request {
        copying { $0.timeoutInterval = seconds }
    }

    /// A copy with this total deadline (``deadline``): `.deadline(.after(.seconds(5)))`, or
    /// `.deadline(.at(instant))` to pass on a deadline the caller was given.
    public func deadline(_ deadline: RequestDeadline) -> Request {
        copying { $0.deadline = deadline }
    }

    /// A copy with these transfer options.
    public func transferOptions(_ options: TransferOptions) -> Request {
        copying { $0.transferOptions = options }
    }

    /// A copy with this redirect policy.
    public func redirect(_ policy: RedirectPolicy) -> Request {
        copying { $0.redirectPolicy = policy }
    }

    /// A copy with `adapter` run after the client's adapters and this request's earlier ones.
    public func adapted(by adapter: some RequestAdapter) -> Request {
        copying { $0.hooks.adapters.append(adapter) }
    }

    /// A copy with `adapt` run after the client's adapters and this request's earlier ones.
    public func adapted(_ adapt: @escaping RequestAdapterClosure.Adapt) -> Request {
        adapted(by: RequestAdapterClosure(adapt))
    }

    /// A copy that uses `policy` instead of the client's ``PipelineConfiguration/retryPolicy``
    /// (``NoRetryPolicy`` turns retries off).
    public func retry(_ policy: some RetryPolicy) -> Request {
        copying { $0.hooks.retryPolicy = policy }
    }

    /// A copy that also runs `validator` before decoding (Alamofire's `validate { request,
    /// response, data in … }`): throw to refuse. A thrown ``NetworkingError`` is used as it is;
    /// any other error becomes ``NetworkingError/Kind/responseValidationFailed``. A refusal is a
    /// failure like any other: the retry policy sees it.
    public func validate(_ validator: @escaping ResponseValidator) -> Request {
        copying { $0.hooks.validators.append(validator) }
    }

    /// A copy whose body goes through `preprocessor` before validation and decoding.
    public func preprocess(_ preprocessor: DataPreprocessor) -> Request {
        copying { $0.hooks.dataPreprocessor = preprocessor }
    }

    /// A copy with `change` applied.
    private func copying(_ change: (inout Request) -> Void) -> Request {
        var copy = self
        change(&copy)
        return copy
    }
}
