import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

// AsyncNetworking demo: starts the embedded loopback server (127.0.0.1, a free port) and shows
// awaiting a request, streaming a transfer with live progress, an upload, and Linux's 401 handled.
//
//   swift run demo                 # everything against the embedded server
//   swift run demo --size 256      # stream 256 MiB instead of 64
//   swift run demo --url URL       # also stream URL (needs a network you are allowed to use)

let arguments = CommandLine.arguments
func option(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}
let streamMiB = Int(option("--size") ?? "") ?? 64

func formatBytes(_ bytes: Int64) -> String {
    let mib = Double(bytes) / 1_048_576
    return mib >= 1 ? String(format: "%.1f MiB", mib) : "\(bytes) B"
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Streams `request`, printing a progress line at most every 100 ms.
func streamWithProgress(_ manager: SessionManager, _ request: URLRequest) async throws {
    let handle = try await manager.dataTask(with: request)
    var lastPrint = ContinuousClock.now - .seconds(1)
    var received: Int64 = 0
    for try await event in handle.events {
        switch event {
        case .response(let response):
            print("  response \(response.statusCode), Content-Length \(response.expectedContentLength)")
        case .data(let chunk):
            received += Int64(chunk.count)
        case .downloadProgress(let progress) where ContinuousClock.now - lastPrint > .milliseconds(100):
            lastPrint = .now
            let percent = progress.fractionCompleted.map { String(format: "%5.1f%%", $0 * 100) } ?? "  ?  "
            print("  \(percent)  \(formatBytes(progress.completedBytes)) received, \(formatBytes(received)) read")
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

let server = try LoopbackServer()
print("AsyncNetworking demo — loopback server at \(server.baseURL)")
defer { server.stop() }

try await withSessionManager { manager in
    print("\n1. await one request")
    let (body, response) = try await manager.data(from: server.url("/json"))
    print("  \(response.statusCode) \(response.value(forHTTPHeaderField: "Content-Type") ?? "") — \(String(decoding: body, as: UTF8.self))")

    print("\n2. stream \(streamMiB) MiB through the event stream, with progress")
    try await streamWithProgress(manager, URLRequest(url: server.url("/bytes/\(streamMiB << 20)")))

    print("\n3. upload 8 MiB with upload progress")
    var upload = URLRequest(url: server.url("/upload"))
    upload.httpMethod = "POST"
    let handle = try await manager.uploadTask(with: upload, from: SeededBytes.data(seed: 1, offset: 0, count: 8 << 20))
    var reply = Data()
    for try await event in handle.events {
        if case .uploadProgress(let progress) = event, progress.completedBytes == progress.expectedBytes {
            print("  sent \(formatBytes(progress.completedBytes))")
        }
        if case .data(let chunk) = event { reply.append(chunk) }
    }
    print("  server says: \(String(decoding: reply, as: UTF8.self))")

    print("\n4. a 401 with WWW-Authenticate (hangs forever with raw URLSession on Linux)")
    let start = ContinuousClock.now
    let (_, unauthorized) = try await manager.data(from: server.url("/basic-auth/user/secret"))
    print(String(format: "  got %d in %.1f ms", unauthorized.statusCode, seconds(ContinuousClock.now - start) * 1000))

    if let urlString = option("--url"), let url = URL(string: urlString) {
        print("\n5. stream \(url)")
        try await streamWithProgress(manager, URLRequest(url: url))
    }
    print("\nactive transfers at the end: \(await manager.activeTransferCount)")
}
