import BenchmarkSupport
import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `benchmarks sequence-upload --server http://127.0.0.1:18180 [--quick]`: a 1 GiB body (64 MiB with
/// `--quick`) POSTed to `URL/upload` from an `AsyncSequence` of 64 KiB chunks on the curl transport
/// (issue 23 item 1): streamed (`SequenceUploadMode.streamed`, the default: bytes leave as produced,
/// the producer held back by the connection), then spooled (written to a temporary file first), then
/// the same bytes from a file (`upload(for:fromFile:)`) as the reference. Reports MB/s (10^6 bytes per
/// second) and the peak RSS growth during the streamed run, which comes first so the process-wide peak
/// is its own.
enum SequenceUploadBenchmark {
    /// 64 KiB chunks, `count` bytes in all, made on demand (never held whole).
    struct Chunks: AsyncSequence, Sendable {
        let count: Int
        struct AsyncIterator: AsyncIteratorProtocol {
            var remaining: Int
            let chunk = Data(repeating: 0x5A, count: 64 << 10)
            mutating func next() async -> Data? {
                guard remaining > 0 else { return nil }
                let size = Swift.min(remaining, chunk.count)
                remaining -= size
                return size == chunk.count ? chunk : chunk.prefix(size)
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(remaining: count) }
    }

    static func run(_ options: Options) async throws {
        guard let server = options.serverURL else { throw BenchmarkError("sequence-upload needs --server URL (nginx accepting POST /upload)") }
        let bytes = options.bigBytes
        let manager = SessionManager(transport: .curl)
        var request = URLRequest(url: server.appendingPathComponent("upload"))
        request.httpMethod = "POST"
        let baseRSS = Measure.currentRSSKiB()

        func timed(_ name: String, _ body: () async throws -> (Data, HTTPURLResponse)) async throws -> Double {
            let started = ContinuousClock.now
            let (_, response) = try await body()
            guard response.statusCode == 200 else { throw BenchmarkError("\(name): status \(response.statusCode)") }
            return Double(bytes) / (ContinuousClock.now - started).seconds / 1e6
        }
        let streamed = try await timed("streamed") {
            try await manager.upload(for: request, fromSequence: { Chunks(count: bytes) }, mode: .streamed)
        }
        let streamedPeak = Double(Measure.peakRSSKiB() - baseRSS) / 1024
        let spooled = try await timed("spooled") {
            try await manager.upload(for: request, fromSequence: { Chunks(count: bytes) }, mode: .spooled)
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sequence-upload-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        for try await chunk in Chunks(count: bytes) { try handle.write(contentsOf: chunk) }
        try handle.close()
        let fromFile = try await timed("file") { try await manager.upload(for: request, fromFile: file) }
        await manager.invalidateAndCancel()
        log(String(
            format: "sequence-upload: %d MiB to %@ on curl — streamed %.0f MB/s (peak RSS growth %.1f MiB), spooled %.0f MB/s, from a file %.0f MB/s",
            bytes >> 20, request.url!.absoluteString, streamed, streamedPeak, spooled, fromFile
        ))
    }
}
