import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoopbackServer
import AsyncNetworking

/// Helpers shared by the Batch test suites.
enum BatchFixtures {
    /// One `/delay/MS` request per delay, tagged with its position (`?i=N`) so the server's log
    /// tells them apart.
    static func delayRequests(_ server: LoopbackServer, _ delays: [Int]) -> [URLRequest] {
        delays.enumerated().map { index, delay in URLRequest(url: server.url("/delay/\(delay)?i=\(index)")) }
    }

    /// A `/bytes/N?seed=S` request and the body it must return.
    static func seeded(_ server: LoopbackServer, size: Int, seed: Int) -> (URLRequest, Data) {
        (URLRequest(url: server.url("/bytes/\(size)?seed=\(seed)")), SeededBytes.data(seed: UInt64(seed), offset: 0, count: size))
    }

    /// A request whose URL has a scheme the manager refuses before sending anything.
    static let unsupportedScheme = URLRequest(url: URL(string: "ftp://127.0.0.1/file")!)

    /// The body as UTF-8 text.
    static func text(_ data: Data) -> String { String(decoding: data, as: UTF8.self) }

    /// The `i` tags of the server's logged requests to `path` (a prefix such as `/delay/`), in
    /// arrival order.
    static func loggedTags(_ server: LoopbackServer, pathPrefix: String) -> [String] {
        server.requests.filter { $0.path.hasPrefix(pathPrefix) }.compactMap { $0.query["i"] }
    }
}

/// Collects every value of a progress stream.
func collectProgress(_ stream: AsyncStream<BatchProgress>) async -> [BatchProgress] {
    var values: [BatchProgress] = []
    for await value in stream { values.append(value) }
    return values
}

/// Lets a test decide the order in which batch members proceed: a member calls `wait(i)` and
/// resumes once the test (or another member) calls `open(i)`.
actor Gate {
    private var opened: Set<Int> = []
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]

    func wait(_ index: Int) async {
        if opened.contains(index) { return }
        await withCheckedContinuation { waiters[index] = $0 }
    }

    func open(_ index: Int) {
        opened.insert(index)
        waiters.removeValue(forKey: index)?.resume()
    }
}
