import BenchmarkSupport
import AsyncNetworking
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// mixed-load's child side (see ``MixedLoad`` for the phases): ours on either transport, the raw
/// URLSession baseline, or the bare libcurl loop (``RawCurlMixedLoad``).
enum MixedLoadVariants {
    /// One contender, once.
    static func child(_ spec: ChildSpec, progress: MixedLoad.Progress = MixedLoad.Progress()) async throws -> MixedLoadFigures {
        let big = URLRequest(url: BenchServer.bytesURL(spec.server, spec.bytes))
        let small = URLRequest(url: BenchServer.bytesURL(spec.server, BenchServer.smallBytes))
        switch spec.mode {
        case .ours, .oursURLSession:
            let manager = SessionManager(transport: spec.transport)
            let client = SmallClient.ours(manager)
            let figures = try await MixedLoad.measure(expectedBytes: spec.bytes, progress: progress, name: spec.mode.rawValue) {
                try await client.get(small, expectedBytes: BenchServer.smallBytes)
            } stream: {
                let (body, response) = try await manager.stream(for: big)
                guard response.statusCode == 200 else { throw BenchmarkError("mixed-load ours: status \(response.statusCode)") }
                var count = 0
                for try await chunk in body {
                    count += chunk.count
                    progress.consumedBytes.store(count, ordering: .relaxed)
                }
                return count
            }
            await manager.invalidateAndCancel()
            return figures
        case .baseline:
            let delegate = MixedStreamDelegate(progress: progress)
            let session = URLSession(configuration: Configurations.tuned(), delegate: delegate, delegateQueue: nil)
            defer { session.invalidateAndCancel() }
            let client = SmallClient.rawAsync(session)
            return try await MixedLoad.measure(expectedBytes: spec.bytes, progress: progress, name: spec.mode.rawValue) {
                try await client.get(small, expectedBytes: BenchServer.smallBytes)
            } stream: {
                try await withUnsafeThrowingContinuation { continuation in
                    let task = session.dataTask(with: big)
                    delegate.start(task.taskIdentifier, continuation)
                    task.resume()
                }
            }
        case .rawCurl:
            return try await RawCurlMixedLoad.run(spec)
        }
    }
}

/// The mixed-load baseline's stream: a raw delegate counting the body bytes of one task on
/// URLSession's own delegate queue (stream-1g's baseline), on a session whose `data(for:)` GETs run
/// beside it. Callbacks of other tasks are ignored.
private final class MixedStreamDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var taskIdentifier = -1
        var continuation: UnsafeContinuation<Int, any Error>?
        var count = 0
        var status = 0
    }

    private let state = Mutex(State())
    private let progress: MixedLoad.Progress

    init(progress: MixedLoad.Progress) {
        self.progress = progress
    }

    func start(_ taskIdentifier: Int, _ continuation: UnsafeContinuation<Int, any Error>) {
        state.withLock {
            $0.taskIdentifier = taskIdentifier
            $0.continuation = continuation
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        state.withLock { if $0.taskIdentifier == dataTask.taskIdentifier { $0.status = status } }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let size = data.count
        let count: Int? = state.withLock { state in
            guard state.taskIdentifier == dataTask.taskIdentifier else { return nil }
            state.count += size
            return state.count
        }
        if let count { progress.consumedBytes.store(count, ordering: .relaxed) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let finished: (UnsafeContinuation<Int, any Error>?, Int, Int)? = state.withLock { state in
            guard state.taskIdentifier == task.taskIdentifier else { return nil }
            defer { state.continuation = nil }
            return (state.continuation, state.count, state.status)
        }
        guard let (continuation, count, status) = finished else { return }
        if let error {
            continuation?.resume(throwing: error)
        } else if status != 200 {
            continuation?.resume(throwing: BenchmarkError("mixed-load baseline: status \(status)"))
        } else {
            continuation?.resume(returning: count)
        }
    }
}
