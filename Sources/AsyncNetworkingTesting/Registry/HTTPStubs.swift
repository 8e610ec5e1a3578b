import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Canned responses for unit tests of code that uses ``SessionManager`` or ``HTTPClient``, with
/// no server: stubs keyed by method and URL pattern, and a record of every request.
///
/// ```swift
/// let stubs = HTTPStubs()
/// stubs.on(.get, "https://api.test/users/*") { request in
///     .json(User(id: 42, name: "Ada"))
/// }
/// stubs.on(.post, "/users", respond: .status(201))
/// let client = HTTPClient(manager: SessionManager(stubs: stubs), baseURL: URL(string: "https://api.test"))
///
/// let user = try await client.get("users/42", as: User.self)   // the code under test
/// #expect(stubs.recordedRequests.map(\.url.path) == ["/users/42"])
/// ```
///
/// A manager built with ``SessionManager/init(stubs:configuration:maxConcurrentTransfers:)`` runs
/// on the stubs transport, which answers each attempt from this registry in process and reports
/// it to the same Session code as curl, so everything above the wire is real: the manager's events
/// (response, data, progress, completion), redirects followed by the manager's rules (credential
/// headers dropped on a change of origin, a 307/308 re-sending its body), HTTP Basic challenges
/// answered from ``SessionManager/setCredential(_:forHost:)`` or the challenge hook, limits,
/// cancellation, request and response serializers, validation and errors. Every attempt is
/// recorded: a followed redirect or a retry with a credential is a request of its own. For
/// URLSession's own behaviour (a `URLProtocol`; redirects returned as they are, no challenge
/// issued), pass `transport: .urlSession`
/// (``SessionManager/init(stubs:configuration:maxConcurrentTransfers:transport:)``).
///
/// Matching: the stub added **last** whose method (`nil`: any) and pattern (see
/// ``on(_:_:_:)``) match answers; a request no stub matches fails with
/// ``NetworkingError/Kind/unmatchedStub``. Every request is recorded, matched or not.
///
/// Thread safety: the stubs and the record live behind one lock (a `Mutex`), so stubs can be added
/// and requests read from any task while transfers run. Handlers run outside the lock, on the
/// concurrency pool, and may run concurrently for concurrent requests.
public final class HTTPStubs: Sendable {
    /// Computes a stub's response. It runs for each matching request (concurrently for concurrent
    /// requests), and may suspend. A thrown error fails the request with that error (a
    /// ``NetworkingError`` as it is; anything else as ``NetworkingError/Kind/transport(_:)``
    /// `.unknown`, keeping it as the underlying error).
    public typealias Handler = @Sendable (StubRequest) async throws -> StubResponse

    struct Stub: Sendable {
        let method: HTTPMethod?
        let pattern: StubPattern
        let handler: Handler
    }

    struct State: Sendable {
        var stubs: [Stub] = []
        var recorded: [StubRequest] = []
    }

    /// Identifies this registry to the sessions built with it.
    let id = UUID().uuidString
    private let state = SanitizedMutex(State())

    /// Creates an empty registry: every request fails with ``NetworkingError/Kind/unmatchedStub``
    /// until stubs are added.
    public init() {}

    /// Answers requests with `method` (`nil`: any method) whose URL matches `pattern` with the
    /// response `handler` returns.
    ///
    /// Patterns: an absolute URL (`https://api.test/users/*`) or a path (`/users/*`, any host); `*`
    /// matches any run of characters, `/` included; the query takes part only when the pattern has
    /// a `?` (`/search?q=*`). The stub added last wins over earlier ones that match too.
    public func on(_ method: HTTPMethod?, _ pattern: String, _ handler: @escaping Handler) {
        let stub = Stub(method: method, pattern: StubPattern(pattern), handler: handler)
        state.withLock { $0.stubs.append(stub) }
    }

    /// Answers requests with `method` (`nil`: any) whose URL matches `pattern` with `response`
    /// every time. See ``on(_:_:_:)`` for patterns.
    public func on(_ method: HTTPMethod?, _ pattern: String, respond response: StubResponse) {
        on(method, pattern) { _ in response }
    }

    /// Every request that reached the registry, oldest first, matched or not.
    public var recordedRequests: [StubRequest] {
        state.withLock { $0.recorded }
    }

    /// The recorded requests with `method` (`nil`: any) whose URL matches `pattern`.
    public func recordedRequests(_ method: HTTPMethod?, _ pattern: String) -> [StubRequest] {
        let pattern = StubPattern(pattern)
        return recordedRequests.filter { (method == nil || $0.method == method) && pattern.matches($0.url) }
    }

    /// Removes every stub (the record is kept).
    public func removeAllStubs() {
        state.withLock { $0.stubs.removeAll() }
    }

    /// Empties the record of requests.
    public func clearRecordedRequests() {
        state.withLock { $0.recorded.removeAll() }
    }

    /// Records `request` and returns the handler of the last stub matching it.
    func handler(for request: StubRequest) -> Handler? {
        state.withLock { state in
            state.recorded.append(request)
            return state.stubs.last { ($0.method == nil || $0.method == request.method) && $0.pattern.matches(request.url) }?.handler
        }
    }

    // MARK: Sessions

    /// The `sessionDescription` prefix of the sessions of managers stubbed through `URLProtocol`
    /// (``SessionManager/StubbedTransport/urlSession``; the stubs transport holds its registry itself).
    static let sessionPrefix = "AsyncNetworking.HTTPStubs/"

    private struct WeakStubs: Sendable { weak var stubs: HTTPStubs? }

    /// Every registry a session was built with, by ``id`` (held weakly: a released registry
    /// answers nothing, and its requests fail with ``NetworkingError/Kind/unmatchedStub``).
    private static let registries = SanitizedMutex<[String: WeakStubs]>([:])

    /// Makes this registry findable from tasks whose description is ``sessionDescription``.
    package func register() {
        Self.registries.withLock { registries in
            registries = registries.filter { $0.value.stubs != nil }
            registries[id] = WeakStubs(stubs: self)
        }
    }

    /// The description given to the sessions of managers built with this registry.
    package var sessionDescription: String { Self.sessionPrefix + id }

    /// The registry a task's description (copied from its session's) names.
    static func registry(forTaskDescription description: String?) -> HTTPStubs? {
        guard let description, description.hasPrefix(sessionPrefix) else { return nil }
        let id = String(description.dropFirst(sessionPrefix.count))
        return registries.withLock { $0[id]?.stubs }
    }

    /// Whether `session` belongs to a manager built with stubs.
    package static func isStubbed(_ session: URLSession) -> Bool {
        session.sessionDescription?.hasPrefix(sessionPrefix) == true
    }
}
