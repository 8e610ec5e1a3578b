#if os(Linux)
import Foundation
import Testing
import LoopbackServer
import AsyncNetworking
@testable import CurlTransport

/// Collects the batches a `CurlMultiLoop` hands over, per transfer, and lets tests await completions.
final class CurlRecorder: Sendable {
    /// What one transfer delivered so far.
    struct Record: Sendable {
        var heads: [ResponseHead] = []
        /// The body, kept while it is at most ``CurlRecorder/keptBodyLimit`` bytes.
        var body = Data()
        var bodyCount = 0
        var bodyHash = FNV1a64()
        var sentTotal: Int64 = 0
        var completion: CurlCompletion?
        /// Event kinds in order (`response`, `data`, `sent`, `completed`), runs of `data`/`sent` kept as one.
        var order: [String] = []
    }

    static let keptBodyLimit = 4 << 20

    private struct State: Sendable {
        var records: [CurlTransferID: Record] = [:]
        var waiters: [CurlTransferID: [CheckedContinuation<CurlCompletion, Never>]] = [:]
        var batches = 0
        var eventsAfterCompletion = 0
        var dataHook: (@Sendable (CurlTransferID, Int) -> Void)?
    }

    private let state = SanitizedMutex(State())

    /// The handler to give the loop.
    var handler: @Sendable ([CurlEvent]) -> Void {
        { [self] batch in handle(batch) }
    }

    /// Sets a closure called on the loop thread after each batch, for each transfer that received
    /// data in it, with its byte count so far — like a consumer deciding about flow control.
    func onData(_ hook: @escaping @Sendable (CurlTransferID, Int) -> Void) {
        state.withLock { $0.dataHook = hook }
    }

    private func handle(_ batch: [CurlEvent]) {
        var dataSeen: [CurlTransferID: Int] = [:]
        let (resumptions, hook) = state.withLock { state in
            state.batches += 1
            var resumptions: [(CheckedContinuation<CurlCompletion, Never>, CurlCompletion)] = []
            for event in batch {
                let id = event.transferID
                var record = state.records[id] ?? Record()
                if record.completion != nil { state.eventsAfterCompletion += 1 }
                switch event {
                case .response(_, let head):
                    record.heads.append(head)
                    record.order.append("response")
                case .data(_, let data):
                    record.bodyCount += data.count
                    dataSeen[id] = record.bodyCount
                    record.bodyHash.update(data)
                    if record.bodyCount <= Self.keptBodyLimit { record.body.append(data) } else { record.body = Data() }
                    if record.order.last != "data" { record.order.append("data") }
                case .sent(_, let total):
                    record.sentTotal = total
                    if record.order.last != "sent" { record.order.append("sent") }
                case .completed(_, let completion):
                    record.completion = completion
                    record.order.append("completed")
                    for waiter in state.waiters.removeValue(forKey: id) ?? [] { resumptions.append((waiter, completion)) }
                }
                state.records[id] = record
            }
            return (resumptions, state.dataHook)
        }
        if let hook { for (id, count) in dataSeen { hook(id, count) } }
        for (waiter, completion) in resumptions { waiter.resume(returning: completion) }
    }

    /// Suspends until the transfer has completed; returns its completion.
    func completion(of id: CurlTransferID) async -> CurlCompletion {
        await withCheckedContinuation { (continuation: CheckedContinuation<CurlCompletion, Never>) in
            let done = state.withLock { state -> CurlCompletion? in
                if let completion = state.records[id]?.completion { return completion }
                state.waiters[id, default: []].append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// What the transfer delivered so far.
    func record(_ id: CurlTransferID) -> Record { state.withLock { $0.records[id] ?? Record() } }

    /// Batches handled so far.
    var batches: Int { state.withLock { $0.batches } }

    /// Events that arrived for a transfer after its completion (must stay 0).
    var eventsAfterCompletion: Int { state.withLock { $0.eventsAfterCompletion } }
}

/// Starts a loopback server and a loop, runs `body` within a deadline, then shuts the loop down
/// and checks that it freed every easy handle and that no event followed a completion.
func withCurlLoop<T: Sendable>(
    deadline: Double = 60,
    configuration: CurlMultiLoop.Configuration = .default,
    _ body: @escaping @Sendable (LoopbackServer, CurlMultiLoop, CurlRecorder) async throws -> T
) async throws -> T {
    let server = try LoopbackServer()
    defer { server.stop() }
    let recorder = CurlRecorder()
    let loop = try CurlMultiLoop(configuration: configuration, handler: recorder.handler)
    let result: Result<T, any Error>
    do {
        result = .success(try await withDeadline(deadline) { try await body(server, loop, recorder) })
    } catch {
        result = .failure(error)
    }
    await loop.shutdown()
    let stats = loop.stats
    #expect(!stats.isRunning)
    #expect(stats.liveEasyHandles == 0)
    #expect(stats.activeTransfers == 0)
    #expect(recorder.eventsAfterCompletion == 0)
    return try result.get()
}

extension CurlMultiLoop {
    /// Starts a GET of `url`.
    func get(_ url: URL, options: CurlTransferOptions = .default) throws -> CurlTransferID {
        try start(CurlRequest(url: url, options: options))
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass (a hang guard, not a speed test).
func curlEventually(_ seconds: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// The parsed JSON object of a body.
func curlJSON(_ data: Data) -> [String: Any] {
    ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
}
#endif
