@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore
import AsyncNetworkingTesting

/// Rule: whatever a caller has been told is in the session streams before they end. Each front
/// door that tells a caller an outcome (a client verb, `send` of a ``Request`` with its retries,
/// an ``HTTPTask``, an upload and a download through the client, coalesced callers, a manager
/// call, a manager batch, a handle read to its end) is run, and as soon as it returned the
/// manager is invalidated with ``SessionManager/invalidateAndCancel()``: both streams —
/// ``SessionManager/sessionEvents(bufferingNewest:)`` and
/// ``SessionManager/transferActivity(bufferingNewest:includingData:)`` — must hold one completion
/// per transfer, the last carrying what the caller saw, before their end. A race shows in some
/// runs only, so each door runs many times in one test, on a new manager each time, on curl,
/// URLSession and stubs. (A fresh cache hit starts no transfer, so it has no completion event.)
@Suite struct SessionStreamEndTests {
    struct Named: Decodable, Sendable, Equatable { let name: String }

    enum Door: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case verbFailingDecoding, verbSucceeding, sendRetried, taskFailingDecoding, uploadRefused, downloadRefused,
             coalescedRefused, managerData, managerBatch, managerHandle
        var testDescription: String { rawValue }
    }

    enum Engine: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case curl, urlSession, stubs
        var testDescription: String { rawValue }
    }

    /// 50; more with `STREAM_END_ITERATIONS` (400 beside two `yes > /dev/null` showed the lost
    /// completion of a client call in 4 of 400 runs before the fix).
    static let iterations = Int(ProcessInfo.processInfo.environment["STREAM_END_ITERATIONS"] ?? "") ?? 50
    static let json = "reply?type=application/json&body=%7B%22name%22:%22x%22%7D"
    static let notJSON = "reply?type=application/json&body=not-json"
    static let serverError = "reply?type=application/json&status=500&body=%7B%22name%22:%22x%22%7D"
    static let unavailable = "reply?type=application/json&status=503&body=%7B%22name%22:%22x%22%7D"

    /// What one iteration saw: the caller's outcome (`nil` kind: success), and the completion
    /// errors of each stream, in order.
    struct Iteration: Sendable {
        var caller: NetworkingError.Kind?
        var session: [NetworkingError.Kind?]
        var activity: [NetworkingError.Kind?]
    }

    @Test(arguments: Engine.allCases, Door.allCases)
    func theCallersOutcomeIsInBothStreamsBeforeTheyEnd(_ engine: Engine, _ door: Door) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stream-end-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withDeadline(4 * hangDeadline) {
            for iteration in 0..<Self.iterations {
                let gate = UUID().uuidString
                let stubs = HTTPStubs() // held for the iteration: a manager holds its registry weakly
                let manager: SessionManager
                let baseURL: URL
                let open: @Sendable () async -> Void
                switch engine {
                case .curl, .urlSession:
                    manager = SessionManager(transport: engine == .curl ? .curl : .urlSession)
                    baseURL = server.baseURL
                    open = { server.openGate(gate) }
                case .stubs:
                    let stubGate = PipelineGate()
                    stubs.on(nil, "*") { request in try await Self.stubbedReply(request, gate: stubGate) }
                    manager = SessionManager(stubs: stubs)
                    baseURL = URL(string: "https://api.test/")!
                    open = { await stubGate.open() }
                }
                var client = HTTPClient(manager: manager, baseURL: baseURL)
                client.pipeline.retryPolicy = pipelineFastRetries(maxAttempts: 2)
                let seen = await Self.run(door, client: client, gate: gate, open: open, directory: directory)
                withExtendedLifetime(stubs) {}
                #expect(seen.caller != .unmatchedStub)
                let expected = door == .sendRetried || door == .managerBatch ? 2 : 1
                #expect(seen.session.count == expected, "iteration \(iteration): \(seen.session), the caller saw \(String(describing: seen.caller))")
                #expect(seen.activity.count == expected, "iteration \(iteration): \(seen.activity)")
                #expect(seen.session.last == .some(seen.caller), "iteration \(iteration): the caller saw \(String(describing: seen.caller))")
                #expect(seen.activity.last == .some(seen.caller), "iteration \(iteration): the caller saw \(String(describing: seen.caller))")
            }
        }
    }

    /// Runs `door` once with `client`, invalidates its manager at once, and reads both streams to
    /// their end.
    static func run(
        _ door: Door, client: HTTPClient, gate: String, open: @escaping @Sendable () async -> Void, directory: URL
    ) async -> Iteration {
        let manager = client.manager
        let events = await manager.sessionEvents()
        let activity = await manager.transferActivity()
        let caller = await outcome(of: door, client: client, gate: gate, open: open, directory: directory)
        await manager.invalidateAndCancel()
        var session: [NetworkingError.Kind?] = []
        for await event in events {
            if case .transferCompleted(_, let error) = event { session.append(error?.kind) }
        }
        var completions: [NetworkingError.Kind?] = []
        for await event in activity {
            if case .completed(let done) = event { completions.append(done.error?.kind) }
        }
        return Iteration(caller: caller, session: session, activity: completions)
    }

    /// The error kind the caller of `door` got, `nil` for a success.
    static func outcome(
        of door: Door, client: HTTPClient, gate: String, open: @escaping @Sendable () async -> Void, directory: URL
    ) async -> NetworkingError.Kind? {
        switch door {
        case .verbFailingDecoding:
            return await kind { _ = try await client.get(notJSON, as: Named.self) }
        case .verbSucceeding:
            return await kind { _ = try await client.get(json, as: Named.self) }
        case .sendRetried:
            return await kind { _ = try await client.send(Request<Named>.get(unavailable)) }
        case .taskFailingDecoding:
            return await kind { _ = try await client.task(.get, notJSON, as: Named.self).value }
        case .uploadRefused:
            return await kind { _ = try await client.upload(.data(Data("x".utf8)), to: serverError, as: Named.self) }
        case .downloadRefused:
            return await kind { _ = try await client.download(serverError, to: .directory(directory)) }
        case .coalescedRefused:
            // Both callers are waiting on one transfer, held by the server, before it answers.
            // No retries: one transfer for both callers (a retry would start flights of its own).
            var coalescing = client
            coalescing.transferOptions.coalescesIdenticalRequests = true
            coalescing.pipeline.retryPolicy = NoRetryPolicy()
            let shared = coalescing
            let path = serverError + "&gate=" + gate
            async let first = kind { _ = try await shared.get(path, as: Named.self) }
            async let second = kind { _ = try await shared.get(path, as: Named.self) }
            _ = await eventually { shared.manager.coalescing.exchange.waiting == 2 }
            await open()
            let (a, b) = await (first, second)
            return a == b ? a : .unsupportedOperation // two callers told different things: never expected
        case .managerData:
            return await kind { _ = try await client.manager.data(for: URLRequest(url: try client.resolve(serverError))) }
        case .managerBatch:
            return await kind {
                _ = try await client.manager.data(for: [URLRequest(url: try client.resolve(serverError)), URLRequest(url: try client.resolve(json))])
            }
        case .managerHandle:
            return await kind {
                let handle = try await client.manager.dataTask(with: URLRequest(url: try client.resolve(notJSON)))
                for try await _ in handle.events {}
            }
        }
    }

    static func kind(_ body: () async throws -> Void) async -> NetworkingError.Kind? {
        do {
            try await body()
            return nil
        } catch let error as NetworkingError {
            return error.kind
        } catch {
            Issue.record("not a NetworkingError: \(error)")
            return nil
        }
    }

    /// The loopback server's `/reply` route, for the stubbed manager (its `gate` is `gate`).
    static func stubbedReply(_ request: StubRequest, gate: PipelineGate) async throws -> StubResponse {
        let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        if value("gate") != nil { await gate.wait() }
        return .json(Data((value("body") ?? "").utf8), status: Int(value("status") ?? "") ?? 200)
    }
}
