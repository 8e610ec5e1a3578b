@testable import AsyncNetworkingTestSupport

/// Decoded streams against the loopback server's `/sse` and `/ndjson/N` routes, on the default
/// transport (`ASYNCNETWORKING_TRANSPORT=urlsession` runs them on URLSession).
@Suite("Streams against a server")
struct StreamsServerTests {
    struct Line: Decodable, Sendable { var index: Int; var text: String }

    /// A short wait between reconnections, so the tests do not wait the 3 s default.
    static let quick = EventSource.Configuration(
        reconnectionTime: .milliseconds(20), backoffMultiplier: 1, minimumReconnectionTime: .milliseconds(20)
    )

    static func collect(_ source: EventSource) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in source { events.append(event) }
        return events
    }

    @Test("a stream dropped mid-event resumes from Last-Event-ID: every event once, in order, then 204 ends it")
    func resumesWithoutLossOrRepeat() async throws {
        try await withServerAndManager { server, manager in
            let key = UUID().uuidString
            let source = manager.serverSentEvents(for: URLRequest(url: server.url("/sse?count=30&drop_every=7&log=\(key)")), configuration: Self.quick)
            let events = try await Self.collect(source)
            #expect(events.map(\.id) == (0..<30).map { String($0) })
            #expect(events.map(\.data) == (0..<30).map { "event \($0)\nline 2 of \($0)" })
            #expect(events.allSatisfy { $0.event == "message" })
            // Five connections carried 7, 7, 7, 7 and 2 events; the sixth got the 204.
            let connections = server.streamConnections(key)
            #expect(connections.map(\.lastEventID) == [nil, "6", "13", "20", "27", "29"])
            let requests = server.requests.filter { $0.path == "/sse" }
            #expect(requests.allSatisfy { $0.header("Accept") == "text/event-stream" && $0.header("Cache-Control") == "no-cache" })
        }
    }

    @Test("a Last-Event-ID set on the request is where the stream starts")
    func startsFromTheCallersLastEventID() async throws {
        try await withServerAndManager { server, manager in
            var request = URLRequest(url: server.url("/sse?count=30&drop_every=2"))
            request.setValue("25", forHTTPHeaderField: "Last-Event-ID")
            let events = try await Self.collect(manager.serverSentEvents(for: request, configuration: Self.quick))
            #expect(events.map(\.id) == ["26", "27", "28", "29"])
        }
    }

    @Test("retry: is honoured: the server sees each reconnection at least that long after it dropped the last")
    func retryHonoured() async throws {
        try await withServerAndManager { server, manager in
            let key = UUID().uuidString
            // The configured time is 20 ms: only the server's `retry: 400` explains a longer wait.
            let source = manager.serverSentEvents(for: URLRequest(url: server.url("/sse?count=6&drop_every=2&retry=400&log=\(key)")), configuration: Self.quick)
            let events = try await Self.collect(source)
            #expect(events.map(\.id) == (0..<6).map { String($0) })
            #expect(events.first?.retry == nil, "retry came in a block of its own")
            let connections = server.streamConnections(key)
            #expect(connections.count == 4)
            for (previous, next) in zip(connections, connections.dropFirst()) {
                let closed = try #require(previous.closedAt)
                #expect(next.openedAt - closed >= .milliseconds(400), "reconnected after \(next.openedAt - closed)")
            }
        }
    }

    @Test("without retry: the configured reconnection time is waited")
    func configuredReconnectionTime() async throws {
        try await withServerAndManager { server, manager in
            let key = UUID().uuidString
            let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(300))
            let source = manager.serverSentEvents(for: URLRequest(url: server.url("/sse?count=2&drop_every=1&log=\(key)")), configuration: configuration)
            let events = try await Self.collect(source)
            #expect(events.count == 2)
            let connections = server.streamConnections(key)
            #expect(connections.count == 3)
            for (previous, next) in zip(connections, connections.dropFirst()) {
                #expect(next.openedAt - (previous.closedAt ?? .now) >= .milliseconds(300))
            }
        }
    }

    @Test("a status other than 200 fails without reconnecting", arguments: [500, 404, 201])
    func unacceptableStatus(status: Int) async throws {
        try await withServerAndManager { server, manager in
            let key = UUID().uuidString
            let source = manager.serverSentEvents(for: URLRequest(url: server.url("/sse?status=\(status)&log=\(key)")), configuration: Self.quick)
            let error = await expectNetworkingError { try await Self.collect(source) }
            #expect(error?.kind == .unacceptableStatusCode(status))
            #expect(error?.statusCode == status)
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.streamConnections(key).count == 1)
        }
    }

    @Test("a content type other than text/event-stream fails without reconnecting")
    func wrongContentType() async throws {
        try await withServerAndManager { server, manager in
            let source = manager.serverSentEvents(for: URLRequest(url: server.url("/sse?type=text/plain")), configuration: Self.quick)
            let error = await expectNetworkingError { try await Self.collect(source) }
            #expect(error?.kind == .unacceptableContentType("text/plain"))
        }
    }

    @Test("a server that refuses connections is retried with backoff, then the last error is thrown")
    func refusedThenGivesUp() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        try await withServerAndManager { _, manager in
            let configuration = EventSource.Configuration(
                reconnectionTime: .milliseconds(50), backoffMultiplier: 2, maxFailedAttempts: 2,
                minimumReconnectionTime: .milliseconds(50)
            )
            let start = ContinuousClock.now
            let error = await expectNetworkingError {
                try await Self.collect(manager.serverSentEvents(for: URLRequest(url: refusing.url("/sse")), configuration: configuration))
            }
            #expect(error?.urlErrorCode == .cannotConnectToHost)
            // Three attempts: waits of 100 ms and 200 ms between them (backoff after each failure),
            // each drawn from its upper half (jitter): at least 50 + 100 ms.
            #expect(ContinuousClock.now - start >= .milliseconds(150))
        }
    }

    @Test("cancelling the iterating task ends the loop and the transfer, while connected and while waiting to reconnect")
    func cancellationEnds() async throws {
        try await withServerAndManager { server, manager in
            let key = UUID().uuidString
            let received = Box(0)
            let reader = Task {
                var count = 0
                for try await _ in manager.serverSentEvents(for: URLRequest(url: server.url("/sse?count=1000000&delay=20&log=\(key)")), configuration: Self.quick) {
                    count += 1
                    received.set(count)
                }
                return count
            }
            #expect(await eventually { received.get() >= 3 })
            reader.cancel()
            let count = try await reader.value // ends without throwing
            #expect(count >= 3)
            #expect(await eventually { await manager.activeTransferCount == 0 })
            #expect(await eventually { server.streamConnections(key).first?.closedAt != nil }, "the server saw the client leave")

            // Waiting for a reconnection an hour away: cancelling ends at once.
            let waiting = Task {
                var count = 0
                let configuration = EventSource.Configuration(reconnectionTime: .seconds(3600))
                for try await _ in manager.serverSentEvents(for: URLRequest(url: server.url("/sse?count=2&drop_every=1")), configuration: configuration) {
                    count += 1
                    received.set(-count)
                }
                return count
            }
            #expect(await eventually { received.get() == -1 })
            try await Task.sleep(for: .milliseconds(100))
            waiting.cancel()
            let delivered = try await waiting.value
            #expect(delivered == 1)
        }
    }

    @Test("breaking out of the loop cancels the transfer")
    func breakCancels() async throws {
        try await withServerAndManager { server, manager in
            let key = UUID().uuidString
            var seen: [String] = []
            for try await event in manager.serverSentEvents(for: URLRequest(url: server.url("/sse?count=1000000&delay=10&log=\(key)"))) {
                seen.append(event.id ?? "")
                if seen.count == 3 { break }
            }
            #expect(seen == ["0", "1", "2"])
            #expect(await eventually { await manager.activeTransferCount == 0 })
            #expect(await eventually { server.streamConnections(key).first?.closedAt != nil })
        }
    }

    @Test("HTTPClient.events builds the request from the base URL and parameters")
    func clientEvents() async throws {
        try await withServerAndManager { server, manager in
            let client = HTTPClient(manager: manager, baseURL: server.baseURL)
            let events = try await Self.collect(try client.events("sse", parameters: ["count": 3], configuration: Self.quick))
            #expect(events.map(\.id) == ["0", "1", "2"])
            #expect(server.requests.last?.header("User-Agent") != nil, "the client's default headers are sent")
        }
    }

    @Test("JSON Lines: 20,000 values decoded one at a time, in order")
    func manyJSONLines() async throws {
        try await withServerAndManager { server, manager in
            let (body, response) = try await manager.stream(from: server.url("/ndjson/20000?pad=50"))
            #expect(response.value(forHTTPHeaderField: "Content-Type") == "application/x-ndjson")
            var next = 0
            for try await line in body.jsonLines(of: Line.self) {
                #expect(line.index == next && line.text.count == 50)
                if line.index != next { break }
                next += 1
            }
            #expect(next == 20_000)
        }
    }

    @Test("lines of a streamed body")
    func linesOfABody() async throws {
        try await withServerAndManager { server, manager in
            let (body, _) = try await manager.stream(from: server.url("/ndjson/1000?pad=3"))
            var count = 0
            for try await line in body.lines {
                #expect(line == "{\"index\":\(count),\"text\":\"xxx\"}")
                count += 1
            }
            #expect(count == 1000)
        }
    }
}

/// A value shared between tasks.
final class Box<Value: Sendable>: Sendable {
    private let state: SanitizedMutex<Value>
    init(_ value: Value) { state = SanitizedMutex(value) }
    func get() -> Value { state.withLock { $0 } }
    func set(_ value: Value) { state.withLock { $0 = value } }
}
