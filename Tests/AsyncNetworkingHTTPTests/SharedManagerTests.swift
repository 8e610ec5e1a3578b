@testable import AsyncNetworkingTestSupport

/// `SessionManager.shared`: the one manager of every `HTTPClient` made without one. Rule: a client
/// without a manager runs on `shared` (one loop thread, one pool, however many clients); `shared`
/// is never ended by a user (`invalidate()`/`invalidateAndCancel()` do nothing on it, as on
/// `URLSession.shared`); a client handed a manager, or given a security policy, runs on its own.
@Suite("Shared manager")
struct SharedManagerTests {
    @Test func twentyClientsWithoutAManagerShareOneAndWork() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let clients = (0..<20).map { _ in HTTPClient(baseURL: server.baseURL) }
        for client in clients { #expect(client.manager === SessionManager.shared) }
        let results = try await withDeadline {
            try await withThrowingTaskGroup(of: Document.self) { group in
                for client in clients { group.addTask { try await client.get("json", as: Document.self) } }
                return try await group.reduce(into: [Document]()) { $0.append($1) }
            }
        }
        #expect(results.count == 20)
        #expect(results.allSatisfy { $0.ok && $0.name == "loopback" })
        #expect(server.requests.filter { $0.target == "/json" }.count == 20)
    }

    @Test func sharedUsesThePlatformDefaultTransportAndDefaultConfiguration() async {
        #expect(SessionManager.shared.transport == SessionManager.Transport.platformDefault)
        #expect(await SessionManager.shared.maxConcurrentTransfers == nil)
        #expect(SessionManager.shared.cookieJar == nil)
    }

    @Test func invalidatingSharedEndsNothing() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let shared = SessionManager.shared
        let gate = UUID().uuidString
        try await withDeadline {
            // A transfer running on `shared` while a user tries to end it.
            let handle = try await shared.dataTask(with: URLRequest(url: server.url("gated-bytes?bytes=4096&after=1024&gate=\(gate)")))
            await shared.invalidate()
            await shared.invalidateAndCancel()
            #expect(await shared.isActive)
            server.openGate(gate)
            var received = 0
            for try await event in handle.events {
                if case .data(let chunk) = event { received += chunk.count }
            }
            #expect(received == 4096, "the running transfer finished")
            // Later calls, from a client and from the manager, still work.
            let document = try await HTTPClient(baseURL: server.baseURL).get("json", as: Document.self)
            #expect(document.ok)
            let (_, response) = try await shared.data(from: server.url("json"))
            #expect(response.statusCode == 200)
        }
    }

    @Test func aClientHandedAManagerUsesThatOne() async throws {
        try await withServerAndManager { server, manager in
            let client = HTTPClient(manager: manager, baseURL: server.baseURL)
            #expect(client.manager === manager)
            #expect(client.manager !== SessionManager.shared)
            let activity = await manager.transferActivity()
            let document = try await client.get("json", as: Document.self)
            #expect(document.ok)
            var sawOwnTransfer = false
            for await event in activity {
                if case .started = event { sawOwnTransfer = true; break }
            }
            #expect(sawOwnTransfer, "the request ran on the manager handed to the client")
        }
    }

    @Test func aClientWithASecurityPolicyGetsAManagerOfItsOwn() throws {
        let client = try HTTPClient(baseURL: URL(string: "https://api.example.com"), securityPolicy: .default)
        #expect(client.manager !== SessionManager.shared)
        let other = try HTTPClient(baseURL: URL(string: "https://api.example.com"), securityPolicy: .default)
        #expect(other.manager !== client.manager)
    }
}
