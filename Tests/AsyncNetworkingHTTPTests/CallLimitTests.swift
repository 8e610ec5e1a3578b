@testable import AsyncNetworkingTestSupport
@testable import AsyncNetworkingCore

/// Rule: a limit the caller sets is the limit the caller sees.
/// - The idle timeout (`timeoutInterval`) is not multiplied by the default retry policy: without a
///   total deadline, retries must start within it, so a silent server costs one timeout and one
///   attempt, on every awaiting front door.
/// - A total deadline (``RequestDeadline``, per client with ``HTTPClient/deadline``, per call with
///   ``Request/deadline(_:)`` or ``TransferOptions/deadline``) ends the call with
///   ``NetworkingError/Kind/deadlineExceeded``, on every awaiting front door of the client and the
///   manager, coalesced callers included (each its own).
/// - The final error carries the number of attempts.
/// Outcomes only (error kinds, attempt counts, requests the server saw), never durations.
@Suite struct CallLimitTests {
    struct Named: Decodable, Sendable { let name: String }

    static let silent = "delay/\(neverEnding)"

    /// The doors that await a value through the client, each sent once against `path`.
    enum ClientDoor: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case verb, request, sendURLRequest, sendRequest, task, upload, multipart, download
        var testDescription: String { rawValue }

        func call(_ client: HTTPClient, _ path: String, directory: URL) async throws(NetworkingError) {
            switch self {
            case .verb: _ = try await client.get(path, as: Named.self)
            case .request: _ = try await client.request(.get, path)
            case .sendURLRequest: _ = try await client.send(client.makeRequest(.get, path), serializer: DataResponseSerializer())
            case .sendRequest: _ = try await client.send(Request<Data>.get(try client.resolve(path).absoluteString))
            case .task: _ = try await client.task(.get, path, as: Named.self).value
            case .upload: _ = try await client.upload(.data(Data("x".utf8)), to: path, method: .put, as: Named.self)
            case .multipart: _ = try await client.post(path, as: Named.self) { form in form.append("v", name: "k") }
            case .download: _ = try await client.download(path, to: .directory(directory))
            }
        }

        /// Whether the door runs the retry pipeline (the others are one transfer each).
        var retries: Bool { [.verb, .request, .sendURLRequest, .sendRequest].contains(self) }
    }

    static func withDirectory<T: Sendable>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    // MARK: The idle timeout is not multiplied

    @Test(arguments: cacheTransports, ClientDoor.allCases)
    func aTimeoutTheCallerSetEndsTheCallAfterOneAttempt(_ transport: SessionManager.Transport, _ door: ClientDoor) async throws {
        try await Self.withDirectory { directory in
            try await withCachedClient(transport, cache: nil) { server, client in
                var client = client
                client.timeoutInterval = 1 // the default retry policy, which retries timeouts
                let error = await expectNetworkingError { try await door.call(client, Self.silent, directory: directory) }
                #expect(error?.kind == .transport(.timedOut))
                #expect(server.requests.filter { $0.path == "/" + Self.silent }.count <= 1, "one attempt, not three")
                if door.retries {
                    #expect(error?.attemptCount == 1)
                    #expect(error?.description.contains("after 1 attempt") == true)
                }
            }
        }
    }

    @Test(arguments: cacheTransports)
    func aGETAnswered500SaysHowManyAttemptsItMade(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: nil) { server, client in
            // The default policy; the retry window (the 60 s timeout) made long enough for a
            // starved machine with a timeout nothing here waits for.
            var client = client
            client.timeoutInterval = 10 * hangDeadline
            let path = "reply?status=500&type=application/json&body=%7B%7D&key=\(UUID().uuidString)"
            let error = await expectNetworkingError { try await client.get(path, as: Named.self) }
            #expect(error?.kind == .unacceptableStatusCode(500))
            #expect(error?.attemptCount == 3, "the default policy: 3 attempts in all")
            #expect(error?.description.contains("after 3 attempts") == true)
            #expect(server.requests.filter { $0.path == "/reply" }.count == 3)
        }
    }

    @Test(arguments: cacheTransports)
    func withADeadlineTimeoutsAreRetriedUntilItPasses(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: nil) { server, client in
            var client = client
            client.timeoutInterval = 1
            client.deadline = .after(.seconds(2 * hangDeadline)) // room for two 1 s timeouts on a starved machine
            client.pipeline.retryPolicy = pipelineFastRetries(maxAttempts: 2)
            let error = await expectNetworkingError { try await client.request(.get, Self.silent) }
            #expect(error?.kind == .transport(.timedOut))
            #expect(error?.attemptCount == 2, "the timeout was retried within the deadline")
        }
    }

    // MARK: The total deadline, on every front door

    @Test(arguments: cacheTransports, ClientDoor.allCases)
    func theClientDeadlineEndsEveryAwaitingCall(_ transport: SessionManager.Transport, _ door: ClientDoor) async throws {
        try await Self.withDirectory { directory in
            try await withCachedClient(transport, cache: nil) { _, client in
                var client = client
                client.deadline = .after(.seconds(1)) // the idle timeout stays 60 s
                let error = await expectNetworkingError { try await door.call(client, Self.silent, directory: directory) }
                #expect(error?.kind == .deadlineExceeded)
                if door.retries {
                    #expect(error?.attemptCount == 1)
                    #expect(error?.message.contains("1.0 s") == true, "the message names the deadline: \(error?.message ?? "")")
                }
            }
        }
    }

    @Test(arguments: cacheTransports)
    func aRequestDeadlineAtAnInstantEndsTheCall(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: nil) { _, client in
            let request = Request<Data>.get(try client.resolve(Self.silent).absoluteString).deadline(.at(.now + .seconds(1)))
            let error = await expectNetworkingError { try await client.send(request) }
            #expect(error?.kind == .deadlineExceeded)
        }
    }

    @Test(arguments: cacheTransports)
    func aDeadlineAlreadyPastSendsNothing(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: nil) { server, client in
            var options = TransferOptions()
            options.deadline = .at(.now - .seconds(1))
            let url = server.url("/bytes/10")
            let managerError = await expectNetworkingError { try await client.manager.data(for: URLRequest(url: url), options: options) }
            #expect(managerError?.kind == .deadlineExceeded)
            var late = client
            late.deadline = .after(.zero)
            let clientError = await expectNetworkingError { try await late.request(.get, "bytes/10") }
            #expect(clientError?.kind == .deadlineExceeded)
            #expect(server.requests.filter { $0.path == "/bytes/10" }.isEmpty)
        }
    }

    /// The manager's awaiting calls and handles take the deadline in their options.
    @Test(arguments: cacheTransports)
    func theManagersCallsAndHandlesEndAtTheirDeadline(_ transport: SessionManager.Transport) async throws {
        try await Self.withDirectory { directory in
            try await withCachedClient(transport, cache: nil) { server, client in
                let manager = client.manager
                var options = TransferOptions()
                options.deadline = .after(.seconds(1))
                let request = URLRequest(url: server.url("/" + Self.silent))
                let data = await expectNetworkingError { try await manager.data(for: request, options: options) }
                #expect(data?.kind == .deadlineExceeded)
                var put = request
                put.httpMethod = "PUT"
                let upload = await expectNetworkingError { try await manager.upload(for: put, from: Data("x".utf8), options: options) }
                #expect(upload?.kind == .deadlineExceeded)
                let download = await expectNetworkingError {
                    try await manager.download(for: request, to: .directory(directory), options: DownloadOptions(transfer: options))
                }
                #expect(download?.kind == .deadlineExceeded)
                let handle = try await manager.dataTask(with: request, options: options)
                let streamed = await expectNetworkingError { try await collectEvents(handle) }
                #expect(streamed?.kind == .deadlineExceeded)
            }
        }
    }

    /// Coalesced callers share a transfer but not a deadline: the one whose deadline passes stops
    /// waiting with ``NetworkingError/Kind/deadlineExceeded``; the other gets the response.
    @Test(arguments: cacheTransports)
    func coalescedCallersEachKeepTheirOwnDeadline(_ transport: SessionManager.Transport) async throws {
        try await withCachedClient(transport, cache: nil) { server, client in
            var patient = client
            patient.transferOptions.coalescesIdenticalRequests = true
            var hurried = patient
            hurried.deadline = .after(.seconds(1))
            let gate = UUID().uuidString
            let path = "reply?type=application/json&body=%7B%22name%22:%22x%22%7D&gate=\(gate)"
            let first = Task { try await patient.get(path, as: Named.self) }
            #expect(await eventually { client.manager.coalescing.exchange.waiting == 1 })
            let error = await expectNetworkingError { try await hurried.get(path, as: Named.self) }
            #expect(error?.kind == .deadlineExceeded)
            server.openGate(gate)
            let name = try await first.value.name
            #expect(name == "x")
            #expect(server.requests.filter { $0.path == "/reply" }.count == 1)
        }
    }
}
