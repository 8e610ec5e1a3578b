import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `benchmarks two-downloads [--server URL] [--rounds N]`: fairness of two concurrent downloads to
/// disk on one manager (issue 20 item 17): 1 GiB and 100 MiB, started together on the curl
/// transport. With `--server` (nginx) the files are `/1g.bin` and `/100m.bin`; without, an
/// embedded LoopbackServer's `/bytes/N`. For each round it reports, over the time both ran (until
/// the first finished), each one's rate, the slower's ÷ the faster's, and the longest stall: the
/// longest gap between two progress events that moved bytes, or from the start to the first one,
/// of either download (progress comes every 1 % or every second, whichever is first).
enum TwoDownloadsBenchmark {
    static func run(_ options: Options) async -> Int32 {
        do {
            try await measure(options)
            return 0
        } catch {
            log("benchmarks two-downloads: \(error)")
            return 1
        }
    }

    private struct Track: Sendable {
        var bytesAt: [(ContinuousClock.Instant, Int64)] = []
        var finished: ContinuousClock.Instant?

        func bytes(by instant: ContinuousClock.Instant) -> Int64 {
            bytesAt.last(where: { $0.0 <= instant })?.1 ?? 0
        }

        func longestStall(from start: ContinuousClock.Instant, until end: ContinuousClock.Instant) -> Duration {
            var longest = Duration.zero
            var last = start
            var lastBytes: Int64 = 0
            for (instant, bytes) in bytesAt where instant <= end && bytes > lastBytes {
                longest = max(longest, instant - last)
                last = instant
                lastBytes = bytes
            }
            return max(longest, end - last)
        }
    }

    private static func measure(_ options: Options) async throws {
        let server = try BenchServer(url: options.serverURL)
        defer { server.stop() }
        let urls = options.serverURL == nil
            ? [BenchServer.bytesURL(server.baseURL, 1 << 30), BenchServer.bytesURL(server.baseURL, 100 << 20)]
            : [server.baseURL.appendingPathComponent("1g.bin"), server.baseURL.appendingPathComponent("100m.bin")]
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("two-downloads-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let rounds = options.roundsGiven ? options.rounds : 3
        var ratios: [Double] = []
        var stalls: [Double] = []
        for round in 1...rounds {
            let manager = SessionManager(transport: .curl)
            let start = ContinuousClock.now
            let tracks = try await withThrowingTaskGroup(of: (Int, Track).self) { group in
                for (index, url) in urls.enumerated() {
                    let target = directory.appendingPathComponent("r\(round)-\(index).bin")
                    let handle = try await manager.downloadTask(with: URLRequest(url: url), to: .file(target))
                    group.addTask {
                        var track = Track()
                        for try await event in handle.events {
                            if case .downloadProgress(let progress) = event {
                                track.bytesAt.append((.now, progress.completedBytes))
                            }
                        }
                        track.finished = .now
                        try? FileManager.default.removeItem(at: target)
                        return (index, track)
                    }
                }
                var tracks: [Int: Track] = [:]
                for try await (index, track) in group { tracks[index] = track }
                return urls.indices.map { tracks[$0]! }
            }
            await manager.invalidateAndCancel()
            let overlapEnd = tracks.compactMap(\.finished).min() ?? .now
            let overlap = (overlapEnd - start).seconds
            let rates = tracks.map { Double($0.bytes(by: overlapEnd)) / 1_048_576 / overlap }
            let ratio = (rates.min() ?? 0) / max(rates.max() ?? 1, 1e-9)
            let stall = tracks.map { $0.longestStall(from: start, until: $0.finished ?? overlapEnd).seconds }.max() ?? 0
            ratios.append(ratio)
            stalls.append(stall)
            log(String(
                format: "two-downloads round %d: both ran %.2f s; 1 GiB %.0f MiB/s, 100 MiB %.0f MiB/s; slower/faster %.2f; longest stall %.2f s",
                round, overlap, rates[0], rates[1], ratio, stall
            ))
        }
        log(String(
            format: "two-downloads (%@): median slower/faster %.2f (min %.2f); median longest stall %.2f s (max %.2f s)",
            server.description, Measure.median(ratios), ratios.min() ?? 0, Measure.median(stalls), stalls.max() ?? 0
        ))
    }
}
