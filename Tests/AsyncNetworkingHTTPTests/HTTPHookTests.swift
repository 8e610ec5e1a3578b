import Synchronization
@testable import CurlTransport
@testable import AsyncNetworkingCore
@testable import AsyncNetworkingTestSupport

@Suite("HTTP hooks and limits")
struct HTTPHookTests {
    @Test func refusedRedirectReturnsThe3xx() async throws {
        try await withClient { server, client in
            await client.manager.setHooks(SessionHooks(redirect: { _ in nil }))
            let error = await expectNetworkingError { try await client.get("redirect/2", as: Document.self) }
            #expect(error?.kind == .unacceptableStatusCode(302))
            #expect(error?.response?.value(forHTTPHeaderField: "Location") == "/redirect/1")
            let accepting = DataResponseSerializer().acceptingStatusCodes(200..<400)
            let result = try await client.request(.get, "redirect/2", serializer: accepting)
            #expect(result.statusCode == 302)
            #expect(text(result.value).hasPrefix("redirecting to /redirect/1"))
            #expect(result.metrics.redirectCount == 0)
            #expect(server.requests.map(\.path) == ["/redirect/2", "/redirect/2"])
        }
    }

    @Test func modifiedRedirectGoesElsewhere() async throws {
        try await withClient { server, client in
            let json = server.url("/json")
            await client.manager.setHooks(SessionHooks(redirect: { context in
                var request = context.proposedRequest
                request.url = json
                return request
            }))
            let result = try await client.request(.get, "redirect/3", as: Document.self)
            #expect(result.value.name == "loopback")
            #expect(result.metrics.redirectCount == 1)
            #expect(server.requests.map(\.path) == ["/redirect/3", "/json"])
        }
    }

    @Test func challengeHookCredentialTurnsThe401Into200() async throws {
        try await withClient { _, client in
            let methods = SanitizedMutex<[String]>([])
            await client.manager.setHooks(SessionHooks(challenge: { context in
                methods.withLock { $0.append(context.authenticationMethod) }
                return .useCredential(URLCredential(user: "user", password: "secret", persistence: .none))
            }))
            let reply = try await client.get("basic-auth/user/secret", as: AuthReply.self)
            #expect(reply.authenticated && reply.user == "user")
            #expect(methods.withLock { $0 } == ["NSURLAuthenticationMethodHTTPBasic"])
        }
    }

    @Test func perHostCredentialAndRefusal() async throws {
        try await withClient { _, client async throws in
            await client.manager.setCredential(URLCredential(user: "user", password: "secret", persistence: .none), forHost: "127.0.0.1")
            #expect(try await client.get("basic-auth/user/secret", as: AuthReply.self).authenticated)
            await client.manager.setCredential(URLCredential(user: "user", password: "wrong", persistence: .none), forHost: "127.0.0.1")
            let error = await expectNetworkingError { try await client.get("basic-auth/user/secret", as: AuthReply.self) }
            #expect(error?.kind == .unacceptableStatusCode(401), "a rejected credential ends with the 401, not a hang")
            #expect(try error?.decodeBody(as: AuthReply.self).authenticated == false)
        }
    }

    @Test func digestChallengeOnLinuxIsNotDelivered() async throws {
        try await withClient { server, client in
            let challenged = SanitizedMutex<[String]>([])
            await client.manager.setHooks(SessionHooks(challenge: { context in
                challenged.withLock { $0.append(context.authenticationMethod) }
                return .useCredential(URLCredential(user: "user", password: "secret", persistence: .none))
            }))
            let digest = #"WWW-Authenticate: Digest realm="loopback", nonce="abc123", qop="auth", algorithm=MD5"#
            let error = await expectNetworkingError {
                try await client.get("status/401", parameters: ["noauth": "1", "header": .string(digest)], as: Document.self)
            }
            #expect(error?.kind == .unacceptableStatusCode(401), "the 401 is the result, not a hang")
            #if canImport(FoundationNetworking)
            // FoundationNetworking only raises challenges for Basic: a Digest 401 reaches neither
            // the hook nor a registered credential, and no Authorization header is ever sent.
            #expect(challenged.withLock { $0 }.isEmpty)
            #expect(server.requests.count == 1)
            #expect(server.requests.allSatisfy { $0.header("Authorization") == nil })
            #else
            #expect(challenged.withLock { $0 }.first == "NSURLAuthenticationMethodHTTPDigest")
            #endif
        }
    }

    @Test func cacheHookRefusesOrRewritesWhatWouldBeStored() async throws {
        // The hook's wiring, driven directly: on Linux URLSession never proposes a response to cache
        // (see linuxNeverAsksTheCacheHook), so this is the only way to see it change behaviour there.
        let manager = SessionManager()
        let url = URL(string: "http://h.test/x")!
        let proposed = CachedURLResponse(
            response: HTTPURLResponse(url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])!,
            data: Data("body".utf8)
        )
        let task = manager.underlyingSession.dataTask(with: url)
        defer { task.cancel() }
        let decisions = SanitizedMutex<[CachedURLResponse?]>([]) // TSan sees this lock (not Synchronization.Mutex)
        let decide: @Sendable (CachedURLResponse?) -> Void = { decision in decisions.withLock { $0.append(decision) } }

        // Each hook answers from a task of its own: wait for one decision before asking the next,
        // so they are recorded in order.
        await manager.taskWillCache(proposed, task: task, completion: decide)
        #expect(await eventually { decisions.withLock { $0.count } == 1 })
        await manager.setHooks(SessionHooks(cache: { _ in nil }))
        await manager.taskWillCache(proposed, task: task, completion: decide)
        #expect(await eventually { decisions.withLock { $0.count } == 2 })
        await manager.setHooks(SessionHooks(cache: { proposed in
            CachedURLResponse(response: proposed.response, data: Data("rewritten".utf8), userInfo: nil, storagePolicy: .allowedInMemoryOnly)
        }))
        await manager.taskWillCache(proposed, task: task, completion: decide)

        #expect(await eventually { decisions.withLock { $0.count } == 3 })
        let stored = decisions.withLock { $0 }
        #expect(stored[0]?.data == Data("body".utf8), "no hook: stored as proposed")
        #expect(stored[1] == nil, "refused: nothing stored")
        #expect(stored[2]?.data == Data("rewritten".utf8) && stored[2]?.storagePolicy == .allowedInMemoryOnly)
        await manager.invalidateAndCancel()
    }

    @Test func linuxNeverAsksTheCacheHook() async throws {
        let asked = SanitizedMutex(0)
        try await withClient(configure: { configuration in
            #if canImport(FoundationNetworking)
            configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0, diskPath: nil)
            #else
            configuration.urlCache = URLCache(memoryCapacity: 4 << 20, diskCapacity: 0)
            #endif
            configuration.requestCachePolicy = .useProtocolCachePolicy
        }) { server, client async throws in
            await client.manager.setHooks(SessionHooks(cache: { proposed in
                asked.withLock { $0 += 1 }
                return nil
            }))
            let cacheable: Parameters = ["Cache-Control": "public, max-age=600", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"]
            for _ in 0..<3 {
                #expect(try await client.request(.get, "response-headers", parameters: cacheable).statusCode == 200)
            }
            #if canImport(FoundationNetworking)
            // Measured: FoundationNetworking neither calls willCacheResponse nor stores anything in
            // the URLCache (memory or disk), so every request reaches the server.
            #expect(asked.withLock { $0 } == 0)
            #expect(server.requests.count == 3)
            #else
            // Refused by the hook: nothing is cached, so every request reaches the server too.
            #expect(asked.withLock { $0 } >= 1)
            #expect(server.requests.count == 3)
            #endif
        }
    }

    @Test func responseHookCancelFailsWithCancelled() async throws {
        try await withClient { server, client async throws in
            let decided = SanitizedMutex<ContinuousClock.Instant?>(nil)
            let manager = client.manager
            await client.manager.setHooks(SessionHooks(response: { response, _ in
                guard response.url?.path == "/bytes/100000" else { return .allow }
                // Decide late: once the whole body has arrived and the URLSession task has ended
                // (waited for, not slept for: a busy machine can take any time).
                let deadline = ContinuousClock.now + .seconds(hangDeadline)
                while await !manager.hasAnEndedTaskAwaitingADecision, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(5))
                }
                decided.withLock { $0 = .now }
                return .cancel
            }))
            let error = await expectNetworkingError { try await client.request(.get, "bytes/100000") }
            #expect(error?.kind == .cancelled)
            // URLSession will never confirm cancelling a task that has already ended: the transfer
            // must finish because the manager knows the task is over, not because its 5 s
            // cancellation watchdog gave up waiting (an outcome, whatever the machine's load).
            #expect(decided.withLock { $0 } != nil)
            #expect(await manager.cancellationWatchdogFirings == 0, "the transfer ended without the watchdog")
            #expect(error?.response?.statusCode == 200, "the cancelled response is reported")
            #expect(try await client.get("json", as: Document.self).ok, "allowed responses go on")
            #expect(server.requests.count == 2)
            #expect(await client.manager.activeTransferCount == 0)
        }
    }

    @Test func maxResponseBytesThroughTheHTTPLayer() async throws {
        try await withClient { _, client in
            var limited = client
            limited.transferOptions.maxResponseBytes = 1_000
            let declared = await expectNetworkingError { try await limited.request(.get, "bytes/50000") }
            #expect(declared?.kind == .responseTooLarge(limit: 1_000))
            #expect(declared?.response?.statusCode == 200)
            let streamed = await expectNetworkingError { try await limited.get("stream/50000?chunk=500", serializer: DataResponseSerializer()) }
            #expect(streamed?.kind == .responseTooLarge(limit: 1_000), "a chunked body is cut off while streaming")
            let handle = try await limited.dataTask(.get, "stream/50000")
            let fromHandle = await expectNetworkingError { try await collectEvents(handle) }
            #expect(fromHandle?.kind == .responseTooLarge(limit: 1_000))
            #expect(try await limited.get("bytes/1000", serializer: DataResponseSerializer()).count == 1_000, "at the limit is fine")
            #expect(try await client.get("bytes/50000", serializer: DataResponseSerializer()).count == 50_000, "the copy's limit only")
        }
    }
}

extension SessionManager {
    /// Whether some transfer's URLSession task has ended while its response awaits a hook's decision.
    var hasAnEndedTaskAwaitingADecision: Bool {
        transfers.values.contains { state in
            guard case .deciding(let attempt, _, let held) = state.machine.phase else { return false }
            return attempt.ended || LiveTransferStateMachine.containsCompletion(held)
        }
    }
}
