import Synchronization
@testable import AsyncNetworkingTestSupport

/// Holds a hook until the test releases it, and tells the test when the hook was entered.
final class HookGate: Sendable {
    private let entered: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    private let state = SanitizedMutex<(released: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    init() { (entered, signal) = AsyncStream.makeStream(of: Void.self) }

    /// Called by the hook: says it is running, then waits for ``release()``.
    func enter() async {
        signal.yield()
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.released { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Waits until a hook has entered (once per gate).
    func waitUntilEntered() async {
        var iterator = entered.makeAsyncIterator()
        _ = await iterator.next()
    }

    func release() {
        let waiters = state.withLock { state in
            state.released = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// A decision pending (a redirect, challenge or response hook) when the transfer is cancelled, the
/// manager released or invalidated, or the server answers before reading the body: the transfer
/// ends once, with the caller's reason, and nothing is sent after an invalidation.
@Suite struct PendingDecisionTests {
    enum CancelWay: String, CaseIterable, Sendable { case handle, awaitingTask, invalidateAndCancel }

    private static func redirectHookHeldBy(_ gate: HookGate) -> SessionHooks {
        SessionHooks(redirect: { context in
            await gate.enter()
            return context.proposedRequest
        })
    }

    /// Item 1: cancelling while an async redirect hook decides used to trap FoundationNetworking
    /// ("Received callback for HTTP redirection, but we're not waiting for it") once the hook answered.
    @Test(arguments: CancelWay.allCases)
    func cancellingWhileTheRedirectHookDecidesEndsTheTransferAndTheProcessLives(_ way: CancelWay) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager()
        let gate = HookGate()
        await manager.setHooks(Self.redirectHookHeldBy(gate))
        let request = URLRequest(url: server.url("/redirect/1"))
        let error: NetworkingError? = try await withDeadline(60) {
            switch way {
            case .handle:
                let handle = try await manager.dataTask(with: request)
                return await Self.cancel(handle, whileHeldBy: gate)
            case .awaitingTask:
                let task = Task { try await manager.data(for: request) }
                await gate.waitUntilEntered()
                task.cancel()
                try? await Task.sleep(for: .milliseconds(50))
                gate.release()
                return await expectNetworkingError { try await task.value }
            case .invalidateAndCancel:
                let handle = try await manager.dataTask(with: request)
                await gate.waitUntilEntered()
                let invalidation = Task { await manager.invalidateAndCancel() }
                try? await Task.sleep(for: .milliseconds(50))
                gate.release()
                let error = await expectNetworkingError { try await collectEvents(handle) }
                await invalidation.value
                return error
            }
        }
        let expected: NetworkingError.Kind = way == .invalidateAndCancel ? .sessionInvalidated : .cancelled
        #expect(error?.kind == expected)
        #expect(await manager.activeTransferCount == 0)
        await manager.invalidateAndCancel()
    }

    /// Item 1, by leaving `withSessionManager` while the hook decides.
    @Test func leavingWithSessionManagerWhileTheRedirectHookDecidesIsSafe() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let gate = HookGate()
        let error = try await withDeadline(60) { () -> NetworkingError? in
            let handle = try await withSessionManager { manager in
                await manager.setHooks(Self.redirectHookHeldBy(gate))
                let handle = try await manager.dataTask(with: URLRequest(url: server.url("/redirect/1")))
                await gate.waitUntilEntered()
                return handle
            }
            gate.release()
            return await expectNetworkingError { try await collectEvents(handle) }
        }
        #expect(error?.kind == .sessionInvalidated)
    }

    /// Item 1, for the challenge hook: a 401 whose challenge hook is still deciding.
    @Test func cancellingWhileTheChallengeHookDecidesEndsCancelled() async throws {
        let gate = HookGate()
        try await Self.expectCancelledWhileHeld(by: gate, at: "/basic-auth/u/p", hooks: SessionHooks(challenge: { _ in
            await gate.enter()
            return .useCredential(URLCredential(user: "u", password: "p", persistence: .none))
        }))
    }

    /// Item 1, for the response hook.
    @Test func cancellingWhileTheResponseHookDecidesEndsCancelled() async throws {
        let gate = HookGate()
        try await Self.expectCancelledWhileHeld(by: gate, at: "/bytes/100000", hooks: SessionHooks(response: { _, _ in
            await gate.enter()
            return .allow
        }))
    }

    /// Starts a data task for `path` with `hooks` (one of them held by `gate`), cancels it while the
    /// hook decides and expects it to end `.cancelled` with nothing left active.
    private static func expectCancelledWhileHeld(by gate: HookGate, at path: String, hooks: SessionHooks) async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager()
        await manager.setHooks(hooks)
        let error = try await withDeadline(60) { () -> NetworkingError? in
            let handle = try await manager.dataTask(with: URLRequest(url: server.url(path)))
            return await cancel(handle, whileHeldBy: gate)
        }
        #expect(error?.kind == .cancelled)
        #expect(await manager.activeTransferCount == 0)
        await manager.invalidateAndCancel()
    }

    /// Waits until the hook held by `gate` runs, cancels `handle`, then lets the hook answer; the
    /// error the transfer ended with.
    private static func cancel(_ handle: TransferHandle, whileHeldBy gate: HookGate) async -> NetworkingError? {
        await gate.waitUntilEntered()
        handle.cancel()
        try? await Task.sleep(for: .milliseconds(50))
        gate.release()
        return await expectNetworkingError { try await collectEvents(handle) }
    }

    /// Item 2: `invalidate()` and then an upload's 307 used to create a task on the invalidated
    /// session (`Fatal error: Session invalidated`). The re-send is refused instead.
    @Test func aReSendAfterInvalidateIsRefusedWithSessionInvalidated() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let manager = SessionManager()
        let gate = HookGate()
        await manager.setHooks(Self.redirectHookHeldBy(gate))
        var post = URLRequest(url: server.url("/redirect/1?status=307&to=/upload"))
        post.httpMethod = "POST"
        let request = post
        let error = try await withDeadline(60) { () -> NetworkingError? in
            let handle = try await manager.uploadTask(with: request, from: Data(count: 10_000))
            await gate.waitUntilEntered()
            let invalidation = Task { await manager.invalidate() }
            while await manager.isActive { try? await Task.sleep(for: .milliseconds(5)) }
            gate.release()
            let error = await expectNetworkingError { try await collectEvents(handle) }
            await invalidation.value
            return error
        }
        #expect(error?.kind == .sessionInvalidated)
        #expect(!server.requests.contains { $0.path == "/upload" })
    }

    /// Item 17: a server that answers 307 before reading the body, then accepts the re-send.
    /// The manager used to wait for the first body to go out — which never happens — and time out.
    @Test func aRedirectBeforeTheBodyIsReadIsFollowedForDataAndFileUploads() async throws {
        let server = try EarlyRedirectServer()
        defer { server.stop() }
        let body = Data((0..<(8 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("early-307-\(UUID().uuidString).bin")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let manager = SessionManager()
        var post = URLRequest(url: server.url("/first"))
        post.httpMethod = "POST"
        // An idle timeout, so a stall fails the test in 20 s instead of URLSession's 60.
        post.timeoutInterval = 20
        let request = post
        let statuses = try await withDeadline(240) {
            try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let (data, response) = index % 2 == 0
                            ? try await manager.upload(for: request, from: body)
                            : try await manager.upload(for: request, fromFile: file)
                        return (response.statusCode, String(decoding: data, as: UTF8.self))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(statuses.count == 8)
        #expect(statuses.allSatisfy { $0 == (200, String(body.count)) })
        #expect(server.secondBodies == Array(repeating: body.count, count: 8))
        await manager.invalidateAndCancel()
    }
}
