import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

/// Streams `request`, printing a progress bar at every tenth of the body (or every 1 MiB when the
/// size is unknown).
func streamWithProgress(_ manager: SessionManager, _ request: URLRequest) async throws {
    let handle = try await manager.dataTask(with: request)
    var nextStep: Int64 = 0
    var read: Int64 = 0
    for try await event in handle.events {
        switch event {
        case .response(let response):
            print("  response \(response.statusCode), Content-Length \(response.expectedContentLength)")
        case .data(let chunk):
            read += Int64(chunk.count)
        case .downloadProgress(let progress) where progress.completedBytes >= nextStep:
            nextStep = progress.completedBytes + max((progress.expectedBytes ?? 0) / 10, 1 << 20)
            print("  \(bar(progress.fractionCompleted)) \(formatBytes(progress.completedBytes)) received, \(formatBytes(read)) read")
        case .completed(let metrics):
            let rate = Double(metrics.bytesReceived) / 1_048_576 / max(seconds(metrics.duration), 1e-9)
            print(String(format: "  done: %@ in %.2f s (%.0f MiB/s), first byte after %.1f ms",
                         formatBytes(metrics.bytesReceived), seconds(metrics.duration), rate,
                         (metrics.timeToFirstByte.map(seconds) ?? 0) * 1000))
        default:
            break
        }
    }
}

/// Downloads a slowly served file, pauses it half-way, resumes it, and checks the result.
func downloadWithPause(_ manager: SessionManager, _ server: LoopbackServer) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("AsyncNetworkingDemo-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("file.bin")
    let size = 64 << 20
    let handle = try await manager.downloadTask(with: URLRequest(url: server.url("/bytes/\(size)?seed=9")), to: .file(target))
    var paused = false
    for try await event in handle.events {
        switch event {
        case .downloadProgress(let progress) where !paused && progress.completedBytes >= Int64(size / 2):
            paused = true
            try await handle.suspend()
            print("  paused at about \(formatBytes(progress.completedBytes)) — the bytes stay on disk")
            try await Task.sleep(for: .milliseconds(200))
            try await handle.resume()
            print("  resumed with Range + If-Range")
        case .downloaded(let file):
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            let identical = try Data(contentsOf: file) == SeededBytes.data(seed: 9, offset: 0, count: size)
            print("  \(file.lastPathComponent): \(formatBytes((attributes[.size] as? NSNumber)?.int64Value ?? 0)), identical to the source: \(identical)")
        default:
            break
        }
    }
    let ranges = server.requests.compactMap { $0.header("Range") }
    print("  requests with a Range header: \(ranges)")
}
