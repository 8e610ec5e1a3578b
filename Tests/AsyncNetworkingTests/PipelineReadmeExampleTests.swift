@testable import AsyncNetworkingTestSupport

/// The README's pipeline snippet, run against the loopback server.
@Suite("Pipeline README example")
struct PipelineReadmeExampleTests {
    @Test func aRetriedRequestAsInTheReadme() async throws {
        try await withClient { server, client in
            let key = pipelineKey()
            let lines = SanitizedMutex<[String]>([])
            // README snippet, with the loopback server as the API:
            var api = client
            // The README says 20 s; here the deadline only catches a hang, so a loaded machine
            // (TSan, a parallel run) never runs out of time before the 503 is retried.
            api.pipeline.retryPolicy = DefaultRetryPolicy(maxAttempts: 4, deadline: .seconds(hangDeadline))
            api.pipeline.monitors = [LoggingMonitor(level: .info) { line in lines.withLock { $0.append(line) } }]
            // GET is idempotent: the 503 with `Retry-After: 1` is retried a second later.
            let reply = try await api.send(.get("pipeline/flaky/\(key)?fail=1&retry-after=1&token=s3cret", as: PipelineAttemptReply.self))
            // POST is not retried.
            let post = await expectNetworkingError {
                try await api.send(.post("pipeline/flaky/\(key)-post?fail=1", body: PipelineNewUser(name: "Ada"), as: PipelineAttemptReply.self))
            }
            let curl = Request<PipelineAttemptReply>.get("users/42?token=s3cret").cURLDescription(baseURL: api.baseURL)

            #expect(reply.value.attempt == 2)
            #expect(post?.kind == .unacceptableStatusCode(503))
            #expect(server.pipelineArrivals("flaky", "\(key)-post").count == 1)
            let log = lines.withLock { $0 }.joined(separator: "\n")
            #expect(log.contains("retry in 1.00 s after: status 503"), "\(log)")
            #expect(log.contains("completed 200 after 2 attempt(s)"), "\(log)")
            #expect(!log.contains("s3cret") && !curl.contains("s3cret"))
            #expect(curl.hasPrefix("curl -X GET '\(server.baseURL.absoluteString)/users/42?token=…'"))
        }
    }
}
