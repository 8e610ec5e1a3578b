@testable import AsyncNetworkingTestSupport

/// A new body stream on demand (`taskNeedNewBodyStream`): re-sent bodies come from the producer.
@Suite("Manager: new body stream on demand")
struct ManagerBodyStreamTests {
    let payload = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })

    private func producer(counting calls: ParityCounter) -> BodyStreamProducer {
        let payload = payload
        return BodyStreamProducer(length: Int64(payload.count)) { _ in
            calls.add()
            return InputStream(data: payload)
        }
    }

    private func echoed(_ body: Data) throws -> (length: Int?, method: String?) {
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        return (object?["bodyLength"] as? Int, object?["method"] as? String)
    }

    @Test func aBodyReSentAfterA307ComesFromAFreshStream() async throws {
        try await withServerAndManager { server, manager in
            let calls = ParityCounter()
            var request = URLRequest(url: server.url("/redirect-to?url=/echo&status=307"))
            request.httpMethod = "POST"
            let (body, response) = try await manager.upload(for: request, bodyStream: producer(counting: calls))
            #expect(response.statusCode == 200)
            let (length, method) = try echoed(body)
            #expect(length == payload.count && method == "POST", "the whole body reached the new URL")
            #expect(calls.load() == 2, "one stream per attempt")
        }
    }

    @Test func aBodyReSentWithACredentialAfterA401ComesFromAFreshStream() async throws {
        try await withServerAndManager { server, manager in
            await manager.setCredential(URLCredential(user: "u", password: "p", persistence: .none), forHost: "127.0.0.1")
            let calls = ParityCounter()
            var request = URLRequest(url: server.url("/auth-echo/u/p"))
            request.httpMethod = "POST"
            let handle = try await manager.uploadTask(with: request, bodyStream: producer(counting: calls))
            var body = Data()
            var status: Int?
            for try await event in handle.events {
                if case .response(let response) = event { status = response.statusCode }
                if case .data(let chunk) = event { body.append(chunk) }
            }
            #expect(status == 200)
            #expect(try echoed(body).length == payload.count, "the whole body was sent again")
            #expect(calls.load() == 2, "one stream per attempt")
        }
    }

    @Test func aBodyGivenOnceThatMustBeReSentFailsWithATypedError() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/redirect-to?url=/echo&status=308"))
            request.httpMethod = "PUT"
            let error = await expectNetworkingError {
                try await manager.upload(for: request, bodyStream: .once(InputStream(data: payload)))
            }
            #expect(error?.kind == .bodyStreamNotReplayable)
            #expect(error?.message.contains("sent again") == true)
            #expect(await eventually { await manager.activeTransferCount == 0 })
        }
    }

    @Test func aBodyGivenOnceIsSentWhenNoReSendIsNeeded() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "POST"
            let (body, _) = try await manager.upload(for: request, bodyStream: .once(InputStream(data: payload)))
            #expect(try echoed(body).length == payload.count)
        }
    }

    @Test func aProducerThatMakesNoStreamFailsBeforeSending() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/echo"))
            request.httpMethod = "POST"
            let error = await expectNetworkingError {
                try await manager.upload(for: request, bodyStream: BodyStreamProducer { _ in nil })
            }
            #expect(error?.kind == .bodyStreamNotReplayable)
            #expect(server.requests.isEmpty, "nothing was sent")
        }
    }

    @Test func aFileUploadReSentWithACredentialSendsTheWholeFileAgain() async throws {
        try await TransfersSupport.withDirectory { directory in
            try await withServerAndManager { server, manager in
                await manager.setCredential(URLCredential(user: "u", password: "p", persistence: .none), forHost: "127.0.0.1")
                let file = directory.appendingPathComponent("body.bin")
                try payload.write(to: file)
                var request = URLRequest(url: server.url("/auth-echo/u/p"))
                request.httpMethod = "POST"
                let (body, response) = try await manager.upload(for: request, fromFile: file)
                #expect(response.statusCode == 200)
                #expect(try echoed(body).length == payload.count, "not an empty or truncated re-send")
            }
        }
    }
}
