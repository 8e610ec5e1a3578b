import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
import AsyncNetworking
@testable import AsyncNetworkingHTTP

/// Records every pipeline event, in order, thread-safely.
final class PipelineEventRecorder: EventMonitor {
    private let events = SanitizedMutex<[RequestEvent]>([])

    func receive(_ event: RequestEvent) { events.withLock { $0.append(event) } }

    var all: [RequestEvent] { events.withLock { $0 } }
    var names: [String] { all.map(\.name) }

    /// Attempts started per request.
    var startsPerRequest: [RequestID: Int] {
        var counts: [RequestID: Int] = [:]
        for case .started(let id, _, _) in all { counts[id, default: 0] += 1 }
        return counts
    }

    func contains(_ name: String) -> Bool { all.contains { $0.name == name } }
}

/// A unique key for `/pipeline` routes.
func pipelineKey() -> String { UUID().uuidString }

/// A policy that retries fast (no backoff beyond `Retry-After`), without a budget unless given.
func pipelineFastRetries(maxAttempts: Int = 3, deadline: Duration? = nil, budget: RetryBudget? = nil) -> DefaultRetryPolicy {
    DefaultRetryPolicy(maxAttempts: maxAttempts, baseDelay: .milliseconds(1), maxDelay: .seconds(1000), deadline: deadline, budget: budget)
}

/// A deterministic generator (SplitMix64) for jitter tests.
struct PipelineSeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A gate tasks wait at until it opens.
actor PipelineGate {
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiting.append($0) }
    }

    func open() {
        isOpen = true
        for continuation in waiting { continuation.resume() }
        waiting = []
    }
}

/// A bearer token.
struct PipelineToken: AuthenticationCredential {
    let value: String
    var requiresRefresh: Bool { false }
}

/// Gets `tok-N` from the server's `/pipeline/refresh/KEY` (after `gate`, when given).
struct PipelineAuthenticator: Authenticator {
    let refreshURL: URL
    let manager: SessionManager
    var gate: PipelineGate?

    func apply(_ credential: PipelineToken, to request: inout URLRequest) {
        request.setValue("Bearer \(credential.value)", forHTTPHeaderField: "Authorization")
    }

    func refresh(_ credential: PipelineToken?) async throws -> PipelineToken {
        await gate?.wait()
        let (data, response) = try await manager.data(from: refreshURL)
        guard response.statusCode == 200 else {
            throw NetworkingError(.unacceptableStatusCode(response.statusCode), "the refresh was refused", response: response)
        }
        return PipelineToken(value: String(decoding: data, as: UTF8.self))
    }
}

/// The seconds between two instants.
func pipelineSeconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
    DefaultRetryPolicy.seconds(end - start)
}

/// What the pipeline test server's attempt-counting route answers.
struct PipelineAttemptReply: Decodable, Sendable {
    let attempt: Int
}

/// A request body the pipeline tests encode and decode.
struct PipelineNewUser: Codable, Sendable, Hashable {
    let name: String
    var score: Double = 1
}

/// ``withClient`` with the set-up most pipeline tests start with: `fastRetries` makes
/// ``pipelineFastRetries()`` the retry policy, `recorded` makes a new ``PipelineEventRecorder`` the
/// monitors. `body` gets the server, the client, that recorder and a new ``pipelineKey()``.
func withPipelineClient(
    fastRetries: Bool = false, recorded: Bool = false,
    _ body: @escaping @Sendable (LoopbackServer, HTTPClient, PipelineEventRecorder, String) async throws -> Void
) async throws {
    try await withClient { server, client in
        var client = client
        let recorder = PipelineEventRecorder()
        if fastRetries { client.pipeline.retryPolicy = pipelineFastRetries() }
        if recorded { client.pipeline.monitors = [recorder] }
        try await body(server, client, recorder, pipelineKey())
    }
}
