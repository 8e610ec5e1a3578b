import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `benchmarks two-downloads [--server URL] [--ca FILE] [--drip URL] [--rounds N]`: fairness of two concurrent downloads to
/// disk on one manager (issue 20 item 17): 1 GiB and 100 MiB, started together on the curl
/// transport. With `--server` (nginx) the files are `/1g.bin` and `/100m.bin`; without, an
/// embedded LoopbackServer's `/bytes/N`. For each round it reports, over the time both ran (until
/// the first finished), each one's rate, the slower's ÷ the faster's, and the longest stall: the
/// longest gap between two progress events that moved bytes (from the first one to the end) of
/// either download — progress comes every 1 % or every second, whichever is first — and apart,
/// how long the slower one took to its first progress (connection set-up included). `--drip URL`
/// adds a third, slow download beside them that is not measured (the round waits for it).
enum TwoDownloadsBenchmark {
    private struct Track: Sendable {
        var bytesAt: [(ContinuousClock.Instant, Int64)] = []
        var finished: ContinuousClock.Instant?
        var responded: ContinuousClock.Instant?

        func bytes(by instant: ContinuousClock.Instant) -> Int64 {
            bytesAt.last(where: { $0.0 <= instant })?.1 ?? 0
        }

        /// The time from `start` to the first progress that moved bytes.
        func firstProgress(from start: ContinuousClock.Instant) -> Duration {
            (bytesAt.first(where: { $0.1 > 0 })?.0 ?? start) - start
        }

        /// The longest gap without progress once bytes flowed, and the byte count it began at.
        func longestStall(until end: ContinuousClock.Instant) -> (Duration, Int64) {
            guard let first = bytesAt.first(where: { $0.1 > 0 }) else { return (.zero, 0) }
            var longest = (Duration.zero, Int64(0))
            var (last, lastBytes) = first
            for (instant, bytes) in bytesAt where instant <= end && bytes > lastBytes {
                if instant - last > longest.0 { longest = (instant - last, lastBytes) }
                last = instant
                lastBytes = bytes
            }
            return end - last > longest.0 ? (end - last, lastBytes) : longest
        }
    }

    static func run(_ options: Options) async throws {
        let server = try BenchServer(url: options.serverURL)
        defer { server.stop() }
        let urls = options.serverURL == nil
            ? [BenchServer.bytesURL(server.baseURL, 1 << 30), BenchServer.bytesURL(server.baseURL, 100 << 20)]
            : [server.baseURL.appendingPathComponent("1g.bin"), server.baseURL.appendingPathComponent("100m.bin")]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("two-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rounds = options.roundsGiven ? options.rounds : 3
        let policy: SecurityPolicy = try options.caFile.map { .customRoots(try Certificate.certificates(contentsOf: URL(fileURLWithPath: $0))) } ?? .default
        var ratios: [Double] = []
        var stalls: [Double] = []
        for round in 1...rounds {
            let manager = SessionManager(transport: .curl, securityPolicy: policy)
            let start = ContinuousClock.now
            let tracks = try await withThrowingTaskGroup(of: (Int, Track).self) { group in
                for (index, url) in urls.enumerated() {
                    let target = directory.appendingPathComponent("r\(round)-\(index).bin")
                    let handle = try await manager.downloadTask(with: URLRequest(url: url), to: .file(target))
                    group.addTask {
                        var track = Track()
                        for try await event in handle.events {
                            switch event {
                            case .downloadProgress(let progress): track.bytesAt.append((.now, progress.completedBytes))
                            case .response: track.responded = .now
                            default: break
                            }
                        }
                        track.finished = .now
                        try? FileManager.default.removeItem(at: target)
                        return (index, track)
                    }
                }
                if let drip = options.dripURL {
                    // A slow third download beside them (as `anfetch -j 3` with a drip), not measured.
                    let target = directory.appendingPathComponent("r\(round)-drip.bin")
                    let handle = try await manager.downloadTask(with: URLRequest(url: drip), to: .file(target))
                    group.addTask {
                        for try await _ in handle.events {}
                        try? FileManager.default.removeItem(at: target)
                        return (-1, Track())
                    }
                }
                var tracks: [Int: Track] = [:]
                for try await (index, track) in group where index >= 0 { tracks[index] = track }
                return urls.indices.map { tracks[$0]! }
            }
            await manager.invalidateAndCancel()
            let overlapEnd = tracks.compactMap(\.finished).min() ?? .now
            let overlap = (overlapEnd - start).seconds
            let rates = tracks.map { Double($0.bytes(by: overlapEnd)) / 1_048_576 / overlap }
            let ratio = (rates.min() ?? 0) / max(rates.max() ?? 1, 1e-9)
            let perTrack = tracks.map { $0.longestStall(until: $0.finished ?? overlapEnd) }
            let firstByte = tracks.map { $0.firstProgress(from: start).seconds }.max() ?? 0
            let response = tracks.map { (($0.responded ?? start) - start).seconds }.max() ?? 0
            let worst = perTrack.indices.max { perTrack[$0].0 < perTrack[$1].0 } ?? 0
            let stall = perTrack[worst].0.seconds
            ratios.append(ratio)
            stalls.append(stall)
            log(String(
                format: "two-downloads round %d: both ran %.2f s; 1 GiB %.0f MiB/s, 100 MiB %.0f MiB/s; slower/faster %.2f; longest stall %.2f s (%@ at %lld MiB); response after %.2f s, first progress after %.2f s",
                round, overlap, rates[0], rates[1], ratio, stall, worst == 0 ? "1 GiB" : "100 MiB", perTrack[worst].1 >> 20, response, firstByte
            ))
        }
        log(String(
            format: "two-downloads (%@): median slower/faster %.2f (min %.2f); median longest stall %.2f s (max %.2f s)",
            server.description, Measure.median(ratios), ratios.min() ?? 0, Measure.median(stalls), stalls.max() ?? 0
        ))
    }
}
