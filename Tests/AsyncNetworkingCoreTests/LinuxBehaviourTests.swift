@testable import AsyncNetworkingTestSupport

/// The FoundationNetworking problems of ../shared/LINUX-URLSESSION.md, each checked to be gone.
@Suite("Linux URLSession pitfalls")
struct LinuxBehaviourTests {
    @Test func unauthorizedWithoutCredentialEndsWithThe401() async throws {
        try await withServerAndManager { server, manager in
            // Raw URLSession never ends at all here: ending, with the 401 and its body, is the
            // outcome (the test's deadline catches a hang; how fast is for Benchmarks/).
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/basic-auth/user/secret")))
            var status: Int?
            var body = Data()
            var metrics: TransferMetrics?
            for try await event in handle.events {
                if case .response(let response) = event { status = response.statusCode }
                if case .data(let chunk) = event { body.append(chunk) }
                if case .completed(let m) = event { metrics = m }
            }
            #expect(status == 401, "the 401 is the result (as on Apple platforms), not a hang")
            #expect(metrics != nil, "the transfer completed")
            #expect(String(decoding: body, as: UTF8.self).contains("\"authenticated\""))
            let (_, response) = try await manager.data(from: server.url("/basic-auth/user/secret"))
            #expect(response.statusCode == 401)
            #expect(await manager.activeTransferCount == 0)
        }
    }

    @Test func unauthorizedStreamEndsWithTheResponseAndBody() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/status/401")))
            let events = try await collectEvents(handle)
            #expect(events.map(\.name).first == "response")
            #expect(events.map(\.name).last == "completed")
        }
    }

    @Test func registeredCredentialIsUsedAndReplacesThe401() async throws {
        try await withServerAndManager { server, manager in
            await manager.setCredential(URLCredential(user: "user", password: "secret", persistence: .none), forHost: "127.0.0.1")
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/basic-auth/user/secret")))
            var statuses: [Int] = []
            var body = Data()
            for try await event in handle.events {
                if case .response(let r) = event { statuses.append(r.statusCode) }
                if case .data(let d) = event { body.append(d) }
            }
            #expect(statuses == [200], "the 401 that preceded the retry is not delivered")
            let json = try JSONSerialization.jsonObject(with: body) as? [String: Any]
            #expect(json?["authenticated"] as? Bool == true)
        }
    }

    @Test func wrongCredentialFailsAfterABoundedNumberOfAttempts() async throws {
        try await withServerAndManager { server, manager in
            await manager.setCredential(URLCredential(user: "user", password: "wrong", persistence: .none), forHost: "127.0.0.1")
            // Bounded is counted at the server, not timed: the 401 ends the transfer (no hang) after
            // at most a few attempts.
            let (_, response) = try await manager.data(from: server.url("/basic-auth/user/secret"))
            #expect(response.statusCode == 401)
            let attempts = server.requests.filter { $0.path == "/basic-auth/user/secret" }.count
            #expect(attempts <= 4, "retried \(attempts) times")
        }
    }

    @Test func challengeHookDecides() async throws {
        try await withServerAndManager { server, manager in
            await manager.setHooks(SessionHooks(challenge: { context in
                context.host == "127.0.0.1" && context.previousFailureCount == 0
                    ? .useCredential(URLCredential(user: "user", password: "secret", persistence: .none))
                    : .refuse
            }))
            let (_, response) = try await manager.data(from: server.url("/basic-auth/user/secret"))
            #expect(response.statusCode == 200)
        }
    }

    @Test func redirectsAreFollowedAndCounted() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/redirect/3")))
            let events = try await collectEvents(handle)
            guard case .completed(let metrics) = events.last else { Issue.record("not completed"); return }
            #expect(metrics.redirectCount == 3)
        }
    }

    @Test(arguments: [307, 308])
    func uploadRedirectedWith307Or308IsResentWithItsBody(status: Int) async throws {
        try await withServerAndManager { server, manager in
            let body = SeededBytes.data(seed: 5, offset: 0, count: 300_000)
            var request = URLRequest(url: server.url("/redirect-to?url=/upload&status=\(status)"))
            request.httpMethod = "POST"
            let (reply, response) = try await manager.upload(for: request, from: body)
            #expect(response.statusCode == 200)
            let json = try JSONSerialization.jsonObject(with: reply) as? [String: Any]
            #expect(json?["bytes"] as? Int == body.count, "URLSession alone re-sends an empty body on Linux")
            #expect(json?["checksum"] as? String == String(Checksum.fnv1a64(body)))
            let uploads = server.requests.filter { $0.path == "/upload" }
            #expect(uploads.count == 1)
            #expect(uploads.first?.method == "POST")
        }
    }

    @Test func connectionRefusedIsATypedTransportError() async throws {
        let port = try RefusingPort()
        try await withDeadline {
            let manager = SessionManager()
            let error = await expectNetworkingError { try await manager.data(from: port.url("/bytes/1")) }
            #expect(error?.kind == .transport(.cannotConnectToHost))
            await manager.invalidateAndCancel()
        }
        port.close()
    }

    @Test func droppedConnectionMidBodyIsAnErrorCarryingTheResponse() async throws {
        try await withServerAndManager { server, manager in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url("/drop?after=1000&total=100000")))
            var received = 0
            do {
                for try await event in handle.events { if case .data(let d) = event { received += d.count } }
                Issue.record("a truncated body must not complete")
            } catch let error as NetworkingError {
                if case .transport = error.kind {} else { Issue.record("expected a transport error, got \(error)") }
            }
            #expect(received <= 1000)
        }
    }
}
