import Foundation

/// `/pipeline/…`: routes for request-pipeline tests (retries, credential refresh). Each route is
/// keyed by a test-chosen KEY, counts its arrivals per server, and records when each arrived on
/// the server (``LoopbackServer/pipelineArrivals(_:)``).
///
/// - `/pipeline/flaky/KEY?fail=N[&status=503][&retry-after=V][&delay=MS]`: the first N arrivals
///   get `status` (default 503, with `Retry-After: V` when given, after MS milliseconds when
///   given), later ones 200 `{"attempt": n}`.
/// - `/pipeline/refresh/KEY`: makes a new token generation and returns it as text (`tok-G`);
///   arrivals count refreshes. `?fail=1` answers 500 instead, creating nothing.
/// - `/pipeline/protected/KEY`: 200 `{"attempt": n, "token": T}` when `Authorization` is
///   `Bearer tok-G` for the current generation G (none exists before the first refresh), else 401
///   with `WWW-Authenticate: Bearer` (no Basic challenge, so transports do not answer it).
extension Connection {
    func servePipeline(_ arguments: [String]) throws {
        guard arguments.count == 2 else { return try respondText(404, "not found") }
        let key = "\(core.port)|\(arguments[0])|\(arguments[1])"
        let attempt = PipelineRouteState.shared.arrive(key)
        switch arguments[0] {
        case "flaky":
            let failures = request.queryInt("fail") ?? 0
            guard attempt <= failures else { return try respondJSON(200, ["attempt": attempt]) }
            if let delay = request.queryInt("delay"), delay > 0 { try sleep(milliseconds: delay) }
            var headers: [(String, String)] = []
            if let retryAfter = request.query("retry-after") { headers.append(("Retry-After", retryAfter)) }
            let status = request.queryInt("status") ?? 503
            try respondText(status, "attempt \(attempt) failed", headers: headers)
        case "refresh":
            if request.queryFlag("fail") { return try respondText(500, "refresh refused") }
            let generation = PipelineRouteState.shared.newGeneration("\(core.port)|\(arguments[1])")
            try respondText(200, "tok-\(generation)")
        case "protected":
            let generation = PipelineRouteState.shared.generation("\(core.port)|\(arguments[1])")
            let presented = request.header("Authorization") ?? ""
            if generation > 0, presented == "Bearer tok-\(generation)" {
                try respondJSON(200, ["attempt": attempt, "token": "tok-\(generation)"])
            } else {
                try respondJSON(401, ["authenticated": false], headers: [("WWW-Authenticate", "Bearer")])
            }
        default:
            try respondText(404, "not found")
        }
    }
}

/// Per-server, per-key counters and arrival times for `/pipeline` routes (keys start with the port).
final class PipelineRouteState: Sendable {
    static let shared = PipelineRouteState()

    private struct State {
        var arrivals: [String: [ContinuousClock.Instant]] = [:]
        var generations: [String: Int] = [:]
    }

    private let state = SanitizedMutex(State())

    /// Records an arrival now; returns its 1-based number for `key`.
    func arrive(_ key: String) -> Int {
        let now = ContinuousClock.now
        return state.withLock { state in
            state.arrivals[key, default: []].append(now)
            return state.arrivals[key]!.count
        }
    }

    func arrivals(_ key: String) -> [ContinuousClock.Instant] {
        state.withLock { $0.arrivals[key] ?? [] }
    }

    func newGeneration(_ key: String) -> Int {
        state.withLock { state in
            state.generations[key, default: 0] += 1
            return state.generations[key]!
        }
    }

    func generation(_ key: String) -> Int {
        state.withLock { $0.generations[key] ?? 0 }
    }
}

extension LoopbackServer {
    /// When each request to `/pipeline/ROUTE/KEY` arrived on this server, oldest first, measured
    /// on the server when its head was parsed. `route` is `flaky`, `refresh` or `protected`.
    public func pipelineArrivals(_ route: String, _ key: String) -> [ContinuousClock.Instant] {
        PipelineRouteState.shared.arrivals("\(port)|\(route)|\(key)")
    }
}
