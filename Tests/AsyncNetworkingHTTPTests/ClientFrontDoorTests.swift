@testable import AsyncNetworkingTestSupport

/// Rule: every awaiting `HTTPClient` call — a verb, `send(URLRequest, serializer:)`, `send(Request)` —
/// runs the same pipeline: the client's adapters, the retry policy, the Basic `credential` answer,
/// the monitors. Handle-returning calls are one transfer each. Run on the test's transport.
@Suite("One front door: verbs, send(URLRequest) and send(Request) share the pipeline")
struct ClientFrontDoorTests {
    @Test func verbsRunTheClientsAdaptersAndMonitors() async throws {
        try await withPipelineClient(recorded: true) { server, client, recorder, key in
            var client = client
            client.pipeline.adapters = [HeaderAdapter("X-Front-Door", "adapted")]
            let reply = try await client.get("pipeline/flaky/\(key)?fail=0", as: PipelineAttemptReply.self)
            #expect(reply.attempt == 1)
            let sent = server.requests.filter { $0.path == "/pipeline/flaky/\(key)" }
            #expect(sent.map { $0.header("x-front-door") } == ["adapted"])
            #expect(recorder.names.first == "adapted")
            #expect(recorder.names.last == "completed")

            // The prepared-request door too.
            let prepared = try client.makeRequest(.get, "pipeline/flaky/\(key)-2?fail=0")
            _ = try await client.send(prepared, serializer: DataResponseSerializer())
            #expect(server.requests.filter { $0.path == "/pipeline/flaky/\(key)-2" }.map { $0.header("x-front-door") } == ["adapted"])
        }
    }

    @Test func verbsRetryAnIdempotentTransientFailureLikeRequestValues() async throws {
        try await withPipelineClient(fastRetries: true) { server, client, _, key in
            let reply = try await client.get("pipeline/flaky/\(key)?fail=1", as: PipelineAttemptReply.self)
            #expect(reply.attempt == 2)
            #expect(server.pipelineArrivals("flaky", key).count == 2)

            let viaRequest = pipelineKey()
            let value = try await client.send(.get("pipeline/flaky/\(viaRequest)?fail=1", as: PipelineAttemptReply.self)).value
            #expect(value.attempt == 2)

            // A POST is not idempotent: sent once, through either door.
            let posted = pipelineKey()
            let error = await expectNetworkingError {
                try await client.request(.post, "pipeline/flaky/\(posted)?fail=1", parameters: ["a": "b"])
            }
            #expect(error?.kind == .unacceptableStatusCode(503))
            #expect(server.pipelineArrivals("flaky", posted).count == 1)
        }
    }

    @Test func noRetryPolicySendsOnceThroughEveryDoor() async throws {
        try await withClient { server, client in
            var client = client
            client.pipeline.retryPolicy = NoRetryPolicy()
            let key = pipelineKey()
            let error = await expectNetworkingError { try await client.get("pipeline/flaky/\(key)?fail=1", as: PipelineAttemptReply.self) }
            #expect(error?.kind == .unacceptableStatusCode(503))
            #expect(error?.response?.statusCode == 503, "the failure carries the response")
            #expect(server.pipelineArrivals("flaky", key).count == 1)

            let prepared = pipelineKey()
            let request = try client.makeRequest(.get, "pipeline/flaky/\(prepared)?fail=1")
            let sendError = await expectNetworkingError { try await client.send(request, serializer: DataResponseSerializer()) }
            #expect(sendError?.kind == .unacceptableStatusCode(503))
            #expect(server.pipelineArrivals("flaky", prepared).count == 1)
        }
    }

    @Test func theBasicCredentialAnswersEveryDoorOnce() async throws {
        try await withClient { server, client in
            var client = client
            client.credential = URLCredential(user: "ada", password: "lovelace", persistence: .forSession)
            let verb = try await client.request(.get, "basic-auth/ada/lovelace")
            #expect(verb.response.statusCode == 200)
            let value = try await client.send(Request<Data>.get("basic-auth/ada/lovelace"))
            #expect(value.response.statusCode == 200)
            let attempts = server.requests.filter { $0.path == "/basic-auth/ada/lovelace" }
            #expect(attempts.count == 4, "each door: the unauthenticated attempt, then one answer")
            #expect(attempts.map { $0.header("authorization") != nil } == [false, true, false, true])

            // A wrong credential is answered once, never again: the 401 is the result.
            client.credential = URLCredential(user: "ada", password: "wrong", persistence: .forSession)
            let refused = await expectNetworkingError { try await client.send(Request<Data>.get("basic-auth/ada/lovelace")) }
            #expect(refused?.kind == .unacceptableStatusCode(401))
            #expect(server.requests.filter { $0.path == "/basic-auth/ada/lovelace" }.count == 6)
        }
    }
}
