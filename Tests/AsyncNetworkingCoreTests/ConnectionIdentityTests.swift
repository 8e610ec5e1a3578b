@testable import AsyncNetworkingTestSupport

/// The default `User-Agent` (both transports), and the connection identifier
/// and local address of ``ConnectionMetrics`` (curl; `nil` metrics on URLSession), checked against
/// a server that reports the port each request came from (``ProxyTestServer`` in origin mode).
struct ConnectionIdentityTests {
    @Test func defaultUserAgentIsTheLibrarysAndCanBeOverridden() async throws {
        try await withServerAndManager { server, manager in
            _ = try await manager.fetch(from: server.url("/bytes/1"))
            #expect(server.requests.last?.header("User-Agent") == "AsyncNetworking/\(AsyncNetworkingVersion.current)")
            #expect(server.requests.last?.headerValues("User-Agent").count == 1)
            var request = URLRequest(url: server.url("/bytes/2"))
            request.setValue("per-request/2", forHTTPHeaderField: "user-agent")
            _ = try await manager.fetch(request)
            #expect(server.requests.last?.header("User-Agent") == "per-request/2")
        }
        try await withServerAndManager(configure: { $0.httpAdditionalHeaders = ["User-Agent": "configured/1"] }) { server, manager in
            _ = try await manager.fetch(from: server.url("/bytes/1"))
            #expect(server.requests.last?.header("User-Agent") == "configured/1")
            var request = URLRequest(url: server.url("/bytes/2"))
            request.setValue("per-request/2", forHTTPHeaderField: "User-Agent")
            _ = try await manager.fetch(request)
            #expect(server.requests.last?.header("User-Agent") == "per-request/2", "the request's own wins over the configuration")
        }
    }

    /// Sends a GET and returns the body text and the completion's metrics.
    static func get(_ manager: SessionManager, _ url: URL, close: Bool = false) async throws -> (String, TransferMetrics?) {
        var request = URLRequest(url: url)
        if close { request.setValue("close", forHTTPHeaderField: "Connection") }
        let handle = try await manager.dataTask(with: request)
        var body = Data()
        var metrics: TransferMetrics?
        for try await event in handle.events {
            switch event {
            case .data(let chunk): body.append(chunk)
            case .completed(let value): metrics = value
            default: break
            }
        }
        return (String(decoding: body, as: UTF8.self), metrics)
    }

    @Test(.enabled(if: TestPKI.isAvailable, "needs python3 (the origin that reports client ports)"))
    func connectionIdentifierAndLocalPortFollowTheConnection() async throws {
        let origin = try await ProxyTestServer.started(origin: true)
        defer { origin.stop() }
        let manager = SessionManager(configuration: SessionManager.defaultConfiguration())
        try await withDeadline {
            let (firstBody, first) = try await Self.get(manager, origin.url("/one"))
            let (secondBody, second) = try await Self.get(manager, origin.url("/two"), close: true)
            let (thirdBody, third) = try await Self.get(manager, origin.url("/three"))
            #expect(firstBody == secondBody, "one kept-alive connection: \(origin.log)")
            #expect(thirdBody != secondBody, "Connection: close: a new connection")
            guard manager.transport == .curl else {
                #expect(first?.connection == nil, "URLSession reports no connection metrics on Linux")
                return
            }
            let one = try #require(first?.connection)
            let two = try #require(second?.connection)
            let three = try #require(third?.connection)
            #expect(firstBody == "client-port=\(one.localPort ?? -1)", "the local port is the one the server saw")
            #expect(thirdBody == "client-port=\(three.localPort ?? -1)")
            #expect(one.localAddress == "127.0.0.1")
            #expect(one.connectionIdentifier == "127.0.0.1:\(one.localPort ?? -1)>127.0.0.1:\(origin.port)")
            #expect(two.reusedConnection)
            #expect(one.connectionIdentifier == two.connectionIdentifier, "same connection, same identifier")
            #expect(three.connectionIdentifier != two.connectionIdentifier, "closed: a new connection, a new identifier")
            #expect(!three.reusedConnection)
        }
        await manager.invalidateAndCancel()
    }
}

/// Per-request metrics in batch results: ``SessionManager/measuredData(for:width:options:)``.
struct MeasuredBatchTests {
    @Test func batchMembersCarryTheirMetrics() async throws {
        try await withServerAndManager { server, manager in
            let requests = (1...6).map { URLRequest(url: server.url("/bytes/\($0 * 100)")) }
            let results = try await manager.measuredData(for: requests, width: 3)
            #expect(results.map(\.data.count) == [100, 200, 300, 400, 500, 600])
            #expect(results.allSatisfy { $0.response.statusCode == 200 })
            #expect(results.map(\.metrics.bytesReceived) == [100, 200, 300, 400, 500, 600])
            if manager.transport == .curl {
                let identifiers = Set(results.compactMap(\.metrics.connection?.connectionIdentifier))
                #expect(identifiers.count >= 1 && identifiers.count <= 3, "at most width connections: \(identifiers)")
                #expect(results.allSatisfy { $0.metrics.connection?.localPort != nil })
            } else {
                #expect(results.allSatisfy { $0.metrics.connection == nil })
            }
            let refusing = try RefusingPort()
            let settled = await manager.settledMeasuredData(for: [requests[0], URLRequest(url: URL(string: "http://127.0.0.1:\(refusing.port)/")!)])
            #expect((try? settled[0].get())?.data.count == 100)
            #expect(throws: NetworkingError.self) { try settled[1].get() }
        }
    }
}
