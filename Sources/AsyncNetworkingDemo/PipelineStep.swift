import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

/// A GET the server answers `503` + `Retry-After: 1` once: the pipeline's default retry policy
/// waits the second the server asked for, retries, and decodes the `200`; a logging monitor prints
/// each step (with secrets redacted). A POST to the same kind of route is not retried.
func showRetry(_ manager: SessionManager, _ server: LoopbackServer) async throws {
    var client = HTTPClient(manager: manager, baseURL: server.baseURL)
    client.pipeline.retryPolicy = DefaultRetryPolicy(maxAttempts: 3, deadline: .seconds(30))
    client.pipeline.monitors = [LoggingMonitor(level: .info, write: { print("  log: \($0)") })]
    client.setAuthorization(bearerToken: "demo-secret-token")
    let start = ContinuousClock.now
    let answer = try await client.send(.get("pipeline/flaky/demo-get", query: [
        URLQueryItem(name: "fail", value: "1"), URLQueryItem(name: "retry-after", value: "1"),
    ], as: FlakyAttempt.self))
    print(String(format: "  GET → %d on attempt %d after %.2f s (the server asked for 1 s)",
                 answer.response.statusCode, answer.value.attempt, seconds(ContinuousClock.now - start)))
    let post = Request<FlakyAttempt>.post(
        "pipeline/flaky/demo-post", body: .data(Data("{}".utf8), contentType: "application/json"),
        query: [URLQueryItem(name: "fail", value: "1")]
    )
    do {
        _ = try await client.send(post)
    } catch {
        print("  POST → \(error.response?.statusCode ?? 0), not retried (not idempotent)")
    }
}

/// The `/pipeline/flaky` route's success body.
struct FlakyAttempt: Decodable, Sendable { let attempt: Int }
