import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import LoopbackServer
import AsyncNetworking

/// Thrown by ``withDeadline(_:_:)`` when the body overran: the test fails instead of hanging.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let seconds: Double
    var description: String { "the test body did not finish within \(seconds) s" }
}

/// How long a test waits for something that must happen before calling it a hang. Tests assert
/// outcomes, never speeds: Swift Testing starts every test at once, so on a busy 2-core machine a
/// test may wait its turn for seconds. Speed lives in `Benchmarks/`.
let hangDeadline: Double = 60

/// A `/delay/MS` or `/drip` pause (milliseconds) that outlasts any test: a transfer that must still
/// be running when the test acts on it (cancels it, invalidates the session) waits this long, so a
/// slow machine can never let it end first. The server's sleeps wake at once on `stop()`.
let neverEnding = 600_000

/// Runs `body`, failing with ``DeadlineExceeded`` if it takes longer than `seconds`. Every test that
/// talks to a server uses this, so a hang is a failure, not a stuck CI run. The default is twice
/// ``hangDeadline``, so an ``eventually`` inside the body reports its own condition first.
func withDeadline<T: Sendable>(
    _ seconds: Double = 2 * hangDeadline,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw DeadlineExceeded(seconds: seconds)
        }
        return value
    }
}

/// Starts a loopback server and a manager (on `transport`, default the platform's), runs `body`, then
/// invalidates the manager and stops the server whatever happens, within a deadline.
func withServerAndManager<T: Sendable>(
    deadline: Double = 2 * hangDeadline,
    maxConcurrentTransfers: Int? = nil,
    transport: SessionManager.Transport = .platformDefault,
    configure: @Sendable (URLSessionConfiguration) -> Void = { _ in },
    _ body: @escaping @Sendable (LoopbackServer, SessionManager) async throws -> T
) async throws -> T {
    let server = try LoopbackServer()
    defer { server.stop() }
    let configuration = SessionManager.defaultConfiguration()
    configure(configuration)
    let manager = SessionManager(configuration: configuration, maxConcurrentTransfers: maxConcurrentTransfers, transport: transport)
    do {
        let result = try await withDeadline(deadline) { try await body(server, manager) }
        await manager.invalidateAndCancel()
        return result
    } catch {
        await manager.invalidateAndCancel()
        throw error
    }
}

/// Polls `condition` until it holds or `seconds` pass; returns whether it held. The default only
/// catches hangs (``hangDeadline``): never use a short window to claim that something is fast.
func eventually(_ seconds: Double = hangDeadline, _ condition: @Sendable () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// Collects every event of a handle.
func collectEvents(_ handle: TransferHandle) async throws -> [TransferEvent] {
    var events: [TransferEvent] = []
    for try await event in handle.events { events.append(event) }
    return events
}

extension TransferEvent {
    /// A short name for asserting orders.
    var name: String {
        switch self {
        case .uploadProgress: "uploadProgress"
        case .response: "response"
        case .data: "data"
        case .downloadProgress: "downloadProgress"
        case .downloaded: "downloaded"
        case .trailers: "trailers"
        case .completed: "completed"
        }
    }
}

/// Runs `body` expecting a `NetworkingError`; returns it (or records a failure).
func expectNetworkingError<T>(
    _ body: () async throws -> T,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> NetworkingError? {
    do {
        _ = try await body()
        Issue.record("expected a NetworkingError, got success", sourceLocation: sourceLocation)
        return nil
    } catch let error as NetworkingError {
        return error
    } catch {
        Issue.record("expected a NetworkingError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A port on 127.0.0.1 where every connection is refused, for as long as it is held: a socket
/// bound to it that never listens. A stopped server's port is no good in a parallel run: another
/// test's server may be given it at once.
final class RefusingPort: Sendable {
    let port: UInt16
    private let descriptor: Int32

    struct Failed: Error { let call: String; let errno: Int32 }

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failed(call: "socket", errno: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let error = errno
            _ = Foundation.close(descriptor)
            throw Failed(call: "bind", errno: error)
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// `http://127.0.0.1:PORT` followed by `pathAndQuery`.
    func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!
    }

    /// Frees the port; call once, when the test is done with it.
    func close() {
        _ = Foundation.close(descriptor)
    }
}

/// `/raw` on the loopback server, answering with exactly `response` (then closing).
func rawResponseURL(_ server: LoopbackServer, _ response: String) -> URL {
    let encoded = Data(response.utf8).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
    return server.url("/raw?b64=\(encoded)")
}

/// Runs `body` with an nginx (``NginxTestServer``: HTTP/2 over TLS) serving `files` and a curl
/// manager trusting the test CA, at most `connectionsPerHost` connections per host and `http2` as
/// its HTTP/2 options (`serverStreamLimit`: the streams nginx allows per connection), within a deadline; then invalidates the manager and stops nginx whatever
/// happens.
func withNginxAndManager(
    files: [String: Data], connectionsPerHost: Int = 16, http2: HTTP2Options = .default, serverStreamLimit: Int? = nil,
    _ body: @escaping @Sendable (NginxTestServer, SessionManager) async throws -> Void
) async throws {
    let pki = try await TestPKI.make()
    let server = try await NginxTestServer.started(pki: pki, files: files, maxConcurrentStreams: serverStreamLimit)
    defer { server.stop() }
    let configuration = SessionManager.defaultConfiguration()
    configuration.httpMaximumConnectionsPerHost = connectionsPerHost
    let manager = SessionManager(
        configuration: configuration, transport: .curl, securityPolicy: .customRoots([try pki.certificate("ca.pem")]),
        http2: http2
    )
    do {
        try await withDeadline { try await body(server, manager) }
    } catch {
        await manager.invalidateAndCancel()
        throw error
    }
    await manager.invalidateAndCancel()
}

/// The connections of the next `count` completions on `activity`.
func completedConnections(_ activity: TransferActivityStream, count: Int) async -> [ConnectionMetrics?] {
    var result: [ConnectionMetrics?] = []
    guard count > 0 else { return result }
    for await event in activity {
        guard case .completed(let completion) = event else { continue }
        result.append(completion.metrics?.connection)
        if result.count == count { break }
    }
    return result
}
