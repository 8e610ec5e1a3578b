import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `benchmarks held-streams --server https://127.0.0.1:18443 --ca ca.pem [--count 100] [--hold 5]`:
/// memory and fairness when many streamed transfers of one server are held back by their consumers
/// (issue 20 item 20). Starts `count` streamed GETs of `/100m.bin` (`dataTask(with:)` + events) on
/// the curl transport; reads only the first one, to its end, while the others stay unread for at
/// least `hold` seconds; then reads a second one to its end while the rest stay held. Reports the
/// peak RSS growth over the hold, both read streams' rates, and the HTTP versions they negotiated. Over https nginx offers HTTP/2, so this is the
/// many-streams-on-one-connection case; over http it is HTTP/1.1 throughout.
enum HeldStreamsBenchmark {
    static func run(_ options: Options) async throws {
        guard let server = options.serverURL else { throw BenchmarkError("held-streams needs --server URL (nginx serving /100m.bin)") }
        let count = options.heldCount
        let configuration = SessionManager.defaultConfiguration()
        // Every transfer gets going at once on HTTP/1.1 too (the default 6 per host would queue them).
        configuration.httpMaximumConnectionsPerHost = count + 1
        let policy: SecurityPolicy = try options.caFile.map { .customRoots(try Certificate.certificates(contentsOf: URL(fileURLWithPath: $0))) } ?? .default
        let manager = SessionManager(configuration: configuration, transport: .curl, securityPolicy: policy)
        let url = server.appendingPathComponent("100m.bin")
        let baseRSS = Measure.currentRSSKiB()
        let started = ContinuousClock.now
        var handles: [TransferHandle] = []
        for _ in 0..<count {
            handles.append(try await manager.dataTask(with: URLRequest(url: url)))
        }
        let (read, version) = try await drain(handles[0])
        let readSeconds = (ContinuousClock.now - started).seconds
        let remaining = Duration.seconds(options.holdSeconds) - (ContinuousClock.now - started)
        if remaining > .zero { try await Task.sleep(for: remaining) }
        let peakGrowth = Double(Measure.peakRSSKiB() - baseRSS) / 1024
        // Drain one held transfer to its end too (its version, and that it still completes).
        let heldStart = ContinuousClock.now
        let (heldRead, heldVersion) = try await drain(handles[1])
        let heldSeconds = (ContinuousClock.now - heldStart).seconds
        for handle in handles.dropFirst(2) { handle.cancel() }
        handles.removeAll()
        await manager.invalidateAndCancel()
        log(String(
            format: "held-streams: %d transfers of %@, %d unread for >= %.0f s: peak RSS growth %.0f MiB; read stream %.0f MiB in %.2f s = %.1f MiB/s (%@); then a held one, read with %d still held, %.0f MiB in %.2f s = %.1f MiB/s (%@)",
            count, url.absoluteString, count - 1, Double(options.holdSeconds), peakGrowth, Double(read) / 1_048_576, readSeconds,
            Double(read) / 1_048_576 / readSeconds, version, count - 2, Double(heldRead) / 1_048_576, heldSeconds, Double(heldRead) / 1_048_576 / heldSeconds, heldVersion
        ))
    }

    /// Reads `handle`'s events to the end: the body bytes and the negotiated HTTP version.
    private static func drain(_ handle: TransferHandle) async throws -> (bytes: Int64, version: String) {
        var bytes: Int64 = 0
        var version = "?"
        for try await event in handle.events {
            switch event {
            case .data(let chunk): bytes += Int64(chunk.count)
            case .completed(let metrics): version = metrics.connection?.httpVersion ?? "?"
            default: break
            }
        }
        return (bytes, version)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
