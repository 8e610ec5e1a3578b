import AsyncNetworking
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer

// AsyncNetworking demo: starts the embedded loopback server (127.0.0.1, a free port) and walks
// through the library: an awaited request, a streamed transfer with live progress, the HTTP layer,
// a batch, a download paused and resumed, an upload, Linux's 401 handled, a retried request and a
// cache hit.
//
//   swift run demo                 # everything against the embedded server
//   swift run demo --size 256      # stream 256 MiB instead of 64
//   swift run demo --url URL       # also stream URL (only if you are allowed to reach it)

let streamMiB = Int(option("--size") ?? "") ?? 64
let server = try LoopbackServer()
print("AsyncNetworking demo — loopback server at \(server.baseURL)")
defer { server.stop() }

struct Greeting: Decodable, Sendable {
    let ok: Bool
    let numbers: [Int]
    let name: String
}

try await withSessionManager { manager in
    print("transport: \(manager.transport == .curl ? "curl (libcurl's multi interface)" : "URLSession") — ASYNCNETWORKING_TRANSPORT=urlsession switches")
    print("\n1. await one request")
    let (body, response) = try await manager.data(from: server.url("/json"))
    print("  \(response.statusCode), \(body.count) bytes: \(String(decoding: body, as: UTF8.self))")

    print("\n2. stream \(streamMiB) MiB through the event stream, with progress")
    try await streamWithProgress(manager, URLRequest(url: server.url("/bytes/\(streamMiB << 20)")))

    print("\n3. the HTTP layer: base URL, Decodable, validation errors carrying the body")
    let client = HTTPClient(manager: manager, baseURL: server.baseURL)
    let greeting = try await client.get("json", as: Greeting.self)
    print("  GET json → \(greeting)")
    do {
        _ = try await client.get("status/404", as: Greeting.self)
    } catch let error as NetworkingError {
        print("  GET status/404 → \(error.kind), body \"\(error.bodyText ?? "")\"")
    }

    print("\n4. a batch of 200 requests, 16 at a time, results in input order")
    let requests = (0..<200).map { URLRequest(url: server.url("/delay/\($0 % 7)?i=\($0)")) }
    let start = ContinuousClock.now
    let results = try await manager.data(for: requests, width: 16)
    print(String(format: "  %d responses in %.2f s, all 200: %@", results.count, seconds(ContinuousClock.now - start),
                 results.allSatisfy { $0.1.statusCode == 200 } ? "yes" : "no"))

    print("\n5. a download paused and resumed with a validated Range request")
    try await downloadWithPause(manager, server)

    print("\n6. upload 8 MiB with upload progress")
    var upload = URLRequest(url: server.url("/upload"))
    upload.httpMethod = "POST"
    let (reply, _) = try await manager.upload(for: upload, from: SeededBytes.data(seed: 1, offset: 0, count: 8 << 20))
    print("  server says: \(String(decoding: reply, as: UTF8.self))")

    print("\n7. a 401 with WWW-Authenticate (hangs forever with raw URLSession on Linux)")
    let before = ContinuousClock.now
    let (_, unauthorized) = try await manager.data(from: server.url("/basic-auth/user/secret"))
    print(String(format: "  got %d in %.1f ms", unauthorized.statusCode, seconds(ContinuousClock.now - before) * 1000))

    print("\n8. a GET retried after 503 + Retry-After: 1, logged with secrets redacted")
    try await showRetry(manager, server)

    print("\n9. an HTTP cache in one line: a fresh hit, then a revalidation answered by 304")
    try await showCache(manager, server)

    if let urlString = option("--url"), let url = URL(string: urlString) {
        print("\n10. stream \(url)")
        try await streamWithProgress(manager, URLRequest(url: url))
    }
    print("\nactive transfers at the end: \(await manager.activeTransferCount)")
}
