import BenchmarkSupport
import AsyncNetworking
import Foundation
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
            let delegate = CountingDelegate(progress: progress)
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
        case .oursOnLoop:
            throw BenchmarkError("mixed-load has no ours-on-loop contender")
        }
    }
}
