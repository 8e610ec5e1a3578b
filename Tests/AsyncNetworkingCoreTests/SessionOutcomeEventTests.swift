@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// Rule: the session-wide completion events
/// (``TransferActivity/completed(_:)`` and ``SessionEvent/transferCompleted(_:_:)``) carry the
/// outcome the caller saw — after the client's validation and decoding — for every front door
/// (manager calls, client verbs, ``HTTPTask`` calls, `send` of a ``Request``, per attempt), and a
/// successful client call's event carries its serialized value.
@Suite struct SessionOutcomeEventTests {
    struct Named: Decodable, Sendable, Equatable { let name: String }

    /// What the two streams said about the transfers that completed while `body` ran.
    struct Seen: Sendable {
        var completions: [TransferCompletion]
        var sessionErrors: [NetworkingError.Kind?]
    }

    /// Runs `body` against a client on `transport` and collects `count` completion events from
    /// both streams (waiting with a hang-only deadline).
    static func observe(
        _ transport: SessionManager.Transport, count: Int = 1,
        _ body: @escaping @Sendable (LoopbackServer, HTTPClient) async throws -> Void
    ) async throws -> Seen {
        try await withCachedClient(transport, cache: nil) { (server, client) async throws in
            let activity = await client.manager.transferActivity()
            let events = await client.manager.sessionEvents()
            try await body(server, client)
            var completions: [TransferCompletion] = []
            for await event in activity {
                if case .completed(let done) = event { completions.append(done) }
                if completions.count == count { break }
            }
            var errors: [NetworkingError.Kind?] = []
            for await event in events {
                if case .transferCompleted(_, let error) = event { errors.append(error?.kind) }
                if errors.count == count { break }
            }
            return Seen(completions: completions, sessionErrors: errors)
        }
    }

    static let json = "reply?type=application/json&body=%7B%22name%22:%22x%22%7D"
    static let notJSON = "reply?type=application/json&body=not-json"
    static let serverError = "reply?type=application/json&status=500&body=%7B%22name%22:%22x%22%7D"

    // MARK: Client verbs (awaiting)

    @Test(arguments: cacheTransports)
    func aVerbThatFailsValidationReportsTheStatusError(_ transport: SessionManager.Transport) async throws {
        let seen = try await Self.observe(transport) { _, client in
            await #expect(throws: NetworkingError.self) { try await client.get(Self.serverError, as: Named.self) }
        }
        #expect(seen.completions.first?.error?.kind == .unacceptableStatusCode(500))
        #expect(seen.completions.first?.response?.statusCode == 500)
        #expect(seen.completions.first?.serializedValue == nil)
        #expect(seen.sessionErrors == [.unacceptableStatusCode(500)])
    }

    @Test(arguments: cacheTransports)
    func aVerbThatFailsDecodingReportsTheSerializationError(_ transport: SessionManager.Transport) async throws {
        let seen = try await Self.observe(transport) { _, client in
            await #expect(throws: NetworkingError.self) { try await client.get(Self.notJSON, as: Named.self) }
        }
        #expect(seen.completions.first?.error?.kind == .responseSerializationFailed)
        #expect(seen.sessionErrors == [.responseSerializationFailed])
    }

    @Test(arguments: cacheTransports)
    func aVerbThatSucceedsReportsNoErrorAndTheSerializedValue(_ transport: SessionManager.Transport) async throws {
        let seen = try await Self.observe(transport) { _, client in
            let value = try await client.get(Self.json, as: Named.self)
            #expect(value == Named(name: "x"))
        }
        let done = try #require(seen.completions.first)
        #expect(done.error == nil)
        #expect(done.serializedValue as? Named == Named(name: "x"))
        #expect(seen.sessionErrors == [nil])
    }

    // MARK: HTTPTask calls

    @Test(arguments: cacheTransports)
    func taskUploadAndDownloadCallsReportWhatTheirCallerSaw(_ transport: SessionManager.Transport) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outcome-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let seen = try await Self.observe(transport, count: 5) { _, client in
            let task = try await client.task(.get, Self.notJSON, as: Named.self)
            await #expect(throws: NetworkingError.self) { try await task.value }
            await #expect(throws: NetworkingError.self) {
                try await client.upload(.data(Data("x".utf8)), to: Self.serverError, as: Named.self)
            }
            let uploaded = try await client.upload(.data(Data("x".utf8)), to: Self.json, as: Named.self)
            #expect(uploaded == Named(name: "x"))
            await #expect(throws: NetworkingError.self) { try await client.download("status/500", to: .directory(directory)) }
            let file = try await client.download("bytes/10", to: .directory(directory)).value
            #expect(FileManager.default.fileExists(atPath: file.path))
        }
        let kinds = seen.completions.map { $0.error?.kind }
        #expect(kinds == [.responseSerializationFailed, .unacceptableStatusCode(500), nil, .unacceptableStatusCode(500), nil])
        #expect(seen.completions[2].serializedValue as? Named == Named(name: "x"))
        #expect(seen.completions[4].serializedValue as? URL == seen.completions[4].fileURL)
        #expect(seen.sessionErrors == kinds)
    }

    // MARK: send(Request) through the pipeline, per attempt

    @Test(arguments: cacheTransports)
    func eachPipelineAttemptReportsItsOwnOutcomeAndTheLastTheCallers(_ transport: SessionManager.Transport) async throws {
        let key = UUID().uuidString
        let seen = try await Self.observe(transport, count: 3) { _, client in
            var client = client
            client.pipeline.retryPolicy = pipelineFastRetries()
            let value = try await client.send(Request<Data>.get("pipeline/flaky/\(key)", query: [URLQueryItem(name: "fail", value: "1")])).value
            #expect(!value.isEmpty)
            client.pipeline.retryPolicy = NoRetryPolicy()
            await #expect(throws: NetworkingError.self) { try await client.send(Request<Named>.get("reply", query: [
                URLQueryItem(name: "type", value: "application/json"), URLQueryItem(name: "body", value: "not-json"),
            ])) }
        }
        #expect(seen.completions.map { $0.error?.kind } == [.unacceptableStatusCode(503), nil, .responseSerializationFailed])
        #expect(seen.completions[1].serializedValue is Data)
        #expect(seen.sessionErrors == [.unacceptableStatusCode(503), nil, .responseSerializationFailed])
    }

    // MARK: Coalesced client calls: one transfer, the callers' outcome

    /// Two identical client GETs share one transfer (held by the server until both joined): its
    /// one completion carries what they saw — `unacceptableStatusCode(500)` for a 500 (not the
    /// transport's "no error"), the decoded value for a success.
    @Test(arguments: cacheTransports)
    func coalescedCallsReportWhatTheirCallersSaw(_ transport: SessionManager.Transport) async throws {
        let seen = try await Self.observe(transport, count: 2) { server, client in
            var client = client
            client.transferOptions.coalescesIdenticalRequests = true
            client.pipeline.retryPolicy = NoRetryPolicy()
            for path in [Self.serverError, Self.json] {
                let gate = UUID().uuidString
                let shared = client
                let held = path + "&gate=" + gate
                let calls = (0..<2).map { _ in
                    Task { () -> NetworkingError.Kind? in
                        do { _ = try await shared.get(held, as: Named.self); return nil } catch { return (error as? NetworkingError)?.kind }
                    }
                }
                #expect(await eventually { shared.manager.coalescing.exchange.waiting == 2 })
                server.openGate(gate)
                for call in calls { _ = await call.value }
            }
            #expect(server.requests.filter { $0.path == "/reply" }.count == 2, "one transfer per pair of callers")
        }
        #expect(seen.completions.map { $0.error?.kind } == [.unacceptableStatusCode(500), nil])
        #expect(seen.completions.first?.response?.statusCode == 500)
        #expect(seen.completions.last?.serializedValue as? Named == Named(name: "x"))
        #expect(seen.sessionErrors == [.unacceptableStatusCode(500), nil])
    }

    // MARK: Manager calls: the transfer's own outcome, no serialized value

    @Test(arguments: cacheTransports)
    func managerCallsReportTheirOwnOutcome(_ transport: SessionManager.Transport) async throws {
        let seen = try await Self.observe(transport, count: 2) { server, client in
            // The manager does not validate statuses: its caller gets the 500 as a response.
            let (_, response) = try await client.manager.data(for: URLRequest(url: server.url("/status/500")))
            #expect(response.statusCode == 500)
            var options = TransferOptions()
            options.maxResponseBytes = 10
            let handle = try await client.manager.dataTask(with: URLRequest(url: server.url("/bytes/1000")), options: options)
            await #expect(throws: NetworkingError.self) { for try await _ in handle.events {} }
        }
        #expect(seen.completions.map { $0.error?.kind } == [nil, .responseTooLarge(limit: 10)])
        #expect(seen.completions.allSatisfy { $0.serializedValue == nil })
        #expect(seen.sessionErrors == [nil, .responseTooLarge(limit: 10)])
    }
}
