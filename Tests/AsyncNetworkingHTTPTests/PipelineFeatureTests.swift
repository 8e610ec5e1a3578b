@testable import AsyncNetworkingHTTP
@testable import AsyncNetworkingTestSupport

struct PipelineRejected: Error {}

@Suite("Pipeline adapters, validation, pre-processing, redirects, progress")
struct PipelineFeatureTests {
    @Test func adaptersRunInOrderBeforeEveryAttempt() async throws {
        try await withClient { server, client in
            var client = client
            client.pipeline.retryPolicy = pipelineFastRetries()
            client.pipeline.adapters = [
                HeaderAdapter("X-Order", "client"),
                RequestAdapterClosure { request, context in
                    var request = request
                    request.setValue("\(context.attempt)", forHTTPHeaderField: "X-PipelineAttemptReply")
                    return request
                },
            ]
            let key = pipelineKey()
            let request = Request<Data>.get("pipeline/flaky/\(key)?fail=1&retry-after=0").adapted { request, _ in
                var request = request
                let before = request.value(forHTTPHeaderField: "X-Order") ?? ""
                request.setValue(before + ",request", forHTTPHeaderField: "X-Order")
                return request
            }
            let reply = try await client.send(request)
            #expect(reply.request.value(forHTTPHeaderField: "X-PipelineAttemptReply") == "2")
            let seen = server.requests.filter { $0.path == "/pipeline/flaky/\(key)" }
            #expect(seen.map { $0.header("X-Order") } == ["client,request", "client,request"])
            #expect(seen.map { $0.header("X-PipelineAttemptReply") } == ["1", "2"])
        }
    }

    @Test func anAdapterFailureIsTypedAndNothingIsSent() async throws {
        try await withClient { server, client in
            let error = await expectNetworkingError {
                try await client.send(Request<Data>.get("echo").adapted { _, _ in throw PipelineRejected() })
            }
            #expect(error?.kind == .requestAdaptationFailed)
            #expect(error?.underlyingError is PipelineRejected)
            #expect(server.requests.isEmpty)
        }
    }

    @Test func customValidationRefusesAndPreprocessorStripsXSSI() async throws {
        try await withClient { _, client in
            var client = client
            client.pipeline.retryPolicy = NoRetryPolicy()
            let xssi = ")]}',\n{\"ok\": true, \"numbers\": [1], \"name\": \"x\"}"
            let refused = await expectNetworkingError {
                try await client.send(Request<Data>.get("json").validate { _, response, data in
                    if response.value(forHTTPHeaderField: "Content-Type")?.contains("json") == true, data.count > 10 { throw PipelineRejected() }
                })
            }
            #expect(refused?.kind == .responseValidationFailed)
            #expect(refused?.underlyingError is PipelineRejected)
            #expect(refused?.body != nil)

            let stripped = DataPreprocessor.stripXSSIPrefix()
            let document = try JSONDecoder().decode(Document.self, from: try stripped.transform(Data(xssi.utf8)))
            #expect(document.name == "x")
            // End to end: a pre-processor that adds the prefix back is undone by the XSSI one.
            let reply = try await client.send(
                Request<Document>.get("json")
                    .preprocess(DataPreprocessor { try stripped.transform(Data(")]}'\n".utf8) + $0) })
            )
            #expect(reply.value.name == "loopback")
            let broken = await expectNetworkingError {
                try await client.send(Request<Document>.get("json").preprocess(DataPreprocessor { Data(")]}'\n".utf8) + $0 }))
            }
            #expect(broken?.kind == .responseSerializationFailed)
        }
    }

    @Test func perRequestRedirectPolicy() async throws {
        try await withClient { server, client in
            let refused = await expectNetworkingError { try await client.send(Request<Data>.get("redirect/2").redirect(.doNotFollow)) }
            #expect(refused?.kind == .unacceptableStatusCode(302))
            let limited = await expectNetworkingError { try await client.send(Request<Data>.get("redirect/3").redirect(.maximum(1))) }
            #expect(limited?.kind == .unacceptableStatusCode(302))
            #expect(limited?.response?.value(forHTTPHeaderField: "Location") == "/redirect/1")
            let followed = try await client.send(Request<Data>.get("redirect/2"))
            #expect(followed.metrics.redirectCount == 2)
            #expect(server.requests.filter { $0.path.hasPrefix("/redirect/") }.count == 1 + 2 + 3)
        }
    }

    @Test func voidStringAndSerializerForms() async throws {
        try await withClient { _, client in
            let void: HTTPResponse<Void> = try await client.send(Request<Void>.delete("status/204"))
            #expect(void.statusCode == 204)
            let string = try await client.send(Request<String>.get("text"))
            #expect(string.value == "héllo wörld")
            let echo = try await client.send(.post("echo", body: PipelineNewUser(name: "Ada"), as: Echo.self))
            #expect(echo.value.method == "POST")
            #expect(echo.value.headers.first { $0.key.lowercased() == "content-type" }?.value == "application/json")
            let lenient = try await client.send(Request<Data>.get("status/418"), serializer: DataResponseSerializer().acceptingStatusCodes([418]))
            #expect(lenient.statusCode == 418)
        }
    }

    @Test func progressIsReported() async throws {
        try await withClient { _, client in
            let received = SanitizedMutex<[Int64]>([])
            let reply = try await client.send(Request<Data>.get("bytes/300000")) { progress in
                if case .download(let value, let attempt) = progress, attempt == 1 {
                    received.withLock { $0.append(value.completedBytes) }
                }
            }
            #expect(reply.data.count == 300_000)
            let values = received.withLock { $0 }
            #expect(!values.isEmpty)
            #expect(values == values.sorted())
            #expect(values.last == 300_000)
        }
    }
}

@Suite("Pipeline attempt seam (for the HTTP cache)")
struct PipelineAttemptSeamTests {
    @Test func aWrapperCanAnswerWithoutTheNetworkAndRecordWhatItFetched() async throws {
        try await withClient { server, client in
            var client = client
            let stored = SanitizedMutex<[String: (Data, HTTPURLResponse, TransferMetrics)]>([:])
            let recorder = PipelineEventRecorder()
            client.pipeline.monitors = [recorder]
            client.pipeline.attemptWrapper = { request, network in
                let key = request.url?.absoluteString ?? ""
                if let hit = stored.withLock({ $0[key] }) { return .success(hit) }
                let result = await network(request)
                if case .success(let fetched) = result { stored.withLock { $0[key] = fetched } }
                return result
            }
            let first = try await client.send(Request<Document>.get("json"))
            let second = try await client.send(Request<Document>.get("json"))
            #expect(first.value == second.value)
            #expect(server.requests.filter { $0.path == "/json" }.count == 1)
            #expect(recorder.names.filter { $0 == "completed" }.count == 2)
        }
    }
}
