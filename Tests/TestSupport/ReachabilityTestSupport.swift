import Foundation
import Synchronization
import Testing
import AsyncNetworking

/// Network namespaces for the live reachability tests: each test makes its own (unique names,
/// so parallel runs and parallel processes never clash) and deletes them however it ends, which
/// also destroys every interface inside.
enum NamespaceSupport {
    private static let counter = Atomic<Int>(0)

    /// Whether this process may create network namespaces: root, `ip` present, and a probe
    /// namespace with a veth pair can be made. Checked once.
    static let available: Bool = {
        #if os(Linux)
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: ipPath) else { return false }
        let name = uniqueName()
        defer { _ = try? run(["netns", "del", name]) }
        return (try? run(["netns", "add", name])) != nil
            && (try? run(["-n", name, "link", "add", "v0", "type", "veth", "peer", "name", "v1"])) != nil
        #else
        return false
        #endif
    }()

    /// Why the live tests skip when ``available`` is false.
    static let skipReason: Comment = "needs root and network namespaces (ip netns add, veth): skipped"

    static let ipPath = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip"

    static func uniqueName() -> String {
        "anreach-\(getpid())-\(counter.add(1, ordering: .relaxed).newValue)"
    }

    struct CommandFailed: Error, CustomStringConvertible {
        let arguments: [String]
        let status: Int32
        let output: String
        var description: String { "ip \(arguments.joined(separator: " ")) exited \(status): \(output)" }
    }

    /// Runs `ip` with `arguments`; throws with its output when it fails.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let (status, output) = try Subprocess.run(ipPath, arguments)
        guard status == 0 else { throw CommandFailed(arguments: arguments, status: status, output: output) }
        return output
    }

    /// Creates `count` fresh namespaces, runs `body` with their names, and deletes them whatever
    /// happens.
    static func withNamespaces<T: Sendable>(
        _ count: Int, _ body: @escaping @Sendable ([String]) async throws -> T
    ) async throws -> T {
        var names: [String] = []
        defer { for name in names { _ = try? run(["netns", "del", name]) } }
        for _ in 0..<count {
            let name = uniqueName()
            try run(["netns", "add", name])
            names.append(name)
        }
        let created = names
        return try await withDeadline { try await body(created) }
    }

    /// `/var/run/netns/<name>`.
    static func path(_ name: String) -> String { "/var/run/netns/\(name)" }
}

/// Records every status of a stream, for asserting the exact sequence: after each action a test
/// waits (with a deadline that only catches hangs) until one more status arrived, and compares the
/// whole record with what it expects, so an extra or a missing status fails the test.
final class StatusRecorder: Sendable {
    private let log = SanitizedMutex<[ReachabilityStatus]>([])
    private let task: Task<Void, Never>

    init(_ reachability: NetworkReachability) {
        let stream = reachability.statuses(bufferingNewest: 1_000)
        task = Task { [log] in
            for await status in stream { log.withLock { $0.append(status) } }
        }
    }

    var statuses: [ReachabilityStatus] { log.withLock { $0 } }

    /// Waits until at least `count` statuses were recorded; returns them all.
    func waitForCount(_ count: Int) async -> [ReachabilityStatus] {
        _ = await eventually { self.statuses.count >= count }
        return statuses
    }

    /// Runs `action`, appends `next` to `expected`, and checks the record equals it.
    func expect(
        _ next: ReachabilityStatus, after action: () throws -> Void, expected: inout [ReachabilityStatus],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try action()
        expected.append(next)
        let recorded = await waitForCount(expected.count)
        #expect(recorded == expected, sourceLocation: sourceLocation)
    }

    deinit { task.cancel() }
}
