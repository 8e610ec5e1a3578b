import Foundation
import Testing
@testable import AsyncNetworkingTestSupport

/// AsyncHTTPClient #567: past the *server's* stream limit (SETTINGS_MAX_CONCURRENT_STREAMS) a
/// client must open another connection to the host, not queue every request behind one. The rule:
/// transfers beyond what one connection may carry go on further connections, up to the manager's
/// connections per host, and no connection carries more than the server allows at once. Against a
/// real nginx announcing a limit of 2 (skipped without nginx).
@Suite(.serialized, .enabled(if: NginxTestServer.isAvailable, "needs nginx, openssl and python3 (an HTTP/2 server over TLS)"))
struct HTTP2ServerStreamLimitTests {
    @Test func pastTheServersStreamLimitMoreConnectionsOpen() async throws {
        // Eight GETs of 256 KiB served at 128 KiB/s (2 s each), all started at once: with at most
        // two streams per connection they need at least four connections to run together.
        let file = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 1) })
        try await withNginxAndManager(files: ["f.bin": file], serverStreamLimit: 2) { server, manager in
            let activity = await manager.transferActivity()
            try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<8 { group.addTask { try await manager.data(from: server.url("slow/f.bin")).0 } }
                for try await body in group { #expect(body == file) }
            }
            let connections = await completedConnections(activity, count: 8)
            #expect(connections.allSatisfy { $0?.httpVersion == "HTTP/2" })
            var perConnection: [String: Int] = [:]
            for connection in connections { perConnection[connection?.connectionIdentifier ?? "none", default: 0] += 1 }
            #expect(perConnection.count >= 4, "\(perConnection)")
        }
    }
}
