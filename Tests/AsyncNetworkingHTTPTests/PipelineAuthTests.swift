@testable import AsyncNetworkingCore
@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

struct PipelineProtectedReply: Decodable, Sendable {
    let attempt: Int
    let token: String
}

@Suite("Pipeline credential refresh")
struct PipelineAuthTests {
    @Test func fiftyConcurrent401sCauseExactlyOneRefresh() async throws {
        try await withClient { server, client in
            var client = client
            let key = pipelineKey()
            let authenticator = PipelineAuthenticator(refreshURL: server.url("/pipeline/refresh/\(key)"), manager: client.manager)
            let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: PipelineToken(value: "tok-0"))
            let recorder = PipelineEventRecorder()
            client.pipeline.authenticator = interceptor
            client.pipeline.monitors = [recorder]
            client.pipeline.retryPolicy = NoRetryPolicy()
            let sender = client
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await sender.send(.get("pipeline/protected/\(key)", as: PipelineProtectedReply.self)).value.token }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(tokens.count == 50)
            #expect(Set(tokens) == ["tok-1"])
            #expect(server.pipelineArrivals("refresh", key).count == 1)
            #expect(await interceptor.refreshCount == 1)
            let starts = recorder.startsPerRequest
            #expect(starts.count == 50)
            #expect(starts.values.allSatisfy { $0 <= 2 }, "a request was retried more than once")
            #expect(recorder.names.filter { $0 == "challenged" }.count == starts.values.filter { $0 == 2 }.count)
            // Every 401 carried the old credential; every success the new one.
            let protected = server.requests.filter { $0.path == "/pipeline/protected/\(key)" }
            #expect(Set(protected.map { $0.header("Authorization") ?? "" }).isSubset(of: ["Bearer tok-0", "Bearer tok-1"]))
            #expect(protected.filter { $0.header("Authorization") == "Bearer tok-1" }.count == 50)
        }
    }

    @Test func aFailedRefreshFailsEveryWaiterWithItsError() async throws {
        try await withClient { server, client in
            var client = client
            let key = pipelineKey()
            let gate = PipelineGate()
            let authenticator = PipelineAuthenticator(
                refreshURL: server.url("/pipeline/refresh/\(key)?fail=1"), manager: client.manager, gate: gate
            )
            let interceptor = AuthenticationInterceptor(authenticator: authenticator, credential: PipelineToken(value: "tok-0"))
            client.pipeline.authenticator = interceptor
            client.pipeline.retryPolicy = NoRetryPolicy()
            let sender = client
            let count = 20
            let failures = Task {
                await withTaskGroup(of: NetworkingError?.self) { group in
                    for _ in 0..<count {
                        group.addTask { await expectNetworkingError { try await sender.send(.get("pipeline/protected/\(key)", as: Data.self)) } }
                    }
                    return await group.reduce(into: [NetworkingError?]()) { $0.append($1) }
                }
            }
            // Every request has had its 401 and waits for the one refresh.
            #expect(await eventually { await interceptor.waitingCount == count })
            await gate.open()
            let errors = await failures.value
            #expect(errors.count == count)
            #expect(errors.allSatisfy { $0?.kind == .unacceptableStatusCode(500) && $0?.message == "the refresh was refused" })
            #expect(server.pipelineArrivals("refresh", key).count == 1)
            #expect(await interceptor.refreshCount == 1)
        }
    }

    @Test func cancellingEndsARefreshWaitAtOnce() async throws {
        try await withClient { server, client in
            var client = client
            let key = pipelineKey()
            let gate = PipelineGate()
            let authenticator = PipelineAuthenticator(refreshURL: server.url("/pipeline/refresh/\(key)"), manager: client.manager, gate: gate)
            let interceptor = AuthenticationInterceptor(authenticator: authenticator) // no credential: the first adapt waits
            client.pipeline.authenticator = interceptor
            let sender = client
            let task = Task { await expectNetworkingError { try await sender.send(.get("pipeline/protected/\(key)", as: Data.self)) } }
            #expect(await eventually { await interceptor.waitingCount == 1 })
            task.cancel()
            let error = await task.value // the gate is still shut: only cancellation can end this
            #expect(error?.kind == .cancelled)
            #expect(server.pipelineArrivals("protected", key).isEmpty)
            await gate.open()
            // The refresh still completes for whoever asks next.
            let reply = try await sender.send(.get("pipeline/protected/\(key)", as: PipelineProtectedReply.self))
            #expect(reply.value.token == "tok-1")
            #expect(server.pipelineArrivals("refresh", key).count == 1)
        }
    }

    @Test func aSecondRefusalIsTheResult() async throws {
        try await withClient { server, client in
            var client = client
            let key = pipelineKey()
            // Refreshes from another key: the tokens it hands out are never valid here.
            let authenticator = PipelineAuthenticator(refreshURL: server.url("/pipeline/refresh/other-\(key)"), manager: client.manager)
            client.pipeline.authenticator = AuthenticationInterceptor(authenticator: authenticator, credential: PipelineToken(value: "tok-0"))
            let error = await expectNetworkingError { try await client.send(.get("pipeline/protected/\(key)", as: Data.self)) }
            #expect(error?.kind == .unacceptableStatusCode(401))
            #expect(server.pipelineArrivals("protected", key).count == 2)
            #expect(server.pipelineArrivals("refresh", "other-\(key)").count == 1)
        }
    }
}
