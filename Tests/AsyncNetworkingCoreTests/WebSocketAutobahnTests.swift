@testable import AsyncNetworkingTestSupport

/// Autobahn|Testsuite's client mode, ported: ``WebSocketFuzzingServer`` runs each case of
/// ``WebSocketFuzzingCases`` against an echo client written with the public API over the real
/// curl transport, judges it (OK / NON-STRICT / FAILED), and the test prints the table per
/// category and fails on any FAILED case.
///
/// `swift test --filter WebSocketAutobahnTests` prints the table (`ASYNCNETWORKING_AUTOBAHN_CASES=6.4`
/// runs only the cases whose id starts with one of the comma-separated prefixes).
@Suite("WebSocket conformance through a fuzzing server (Autobahn client mode)", .enabled(if: WebSocketTestServer.python != nil, "python3 is not installed"))
struct WebSocketAutobahnTests {
    struct CaseInfo: Sendable {
        var id: String
        var offer: WebSocketCompression?
    }

    static let categories: [(prefix: String, name: String)] = [
        ("1", "1 Framing"), ("2", "2 Pings/Pongs"), ("3", "3 Reserved Bits"), ("4", "4 Opcodes"),
        ("5", "5 Fragmentation"), ("6", "6 UTF-8 Handling"), ("7", "7 Close Handling"),
        ("9", "9 Limits/Performance"), ("12", "12 WebSocket Compression (payloads)"), ("13", "13 WebSocket Compression (parameters)"),
    ]

    /// One text message from a control path (`/getCases`, `/getResults`).
    private static func control(_ manager: SessionManager, _ url: URL) async throws -> String {
        let socket = try await manager.webSocket(to: url)
        let (messages, error) = await drain(socket)
        if let error { throw error }
        guard case .text(let text)? = messages.first else { throw TLSTestError("\(url.path) sent no text") }
        return text
    }

    static func parseCases(_ text: String) throws -> [CaseInfo] {
        guard let list = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]] else { throw TLSTestError("bad case list") }
        return list.compactMap { item in
            guard let id = item["id"] as? String else { return nil }
            var offer: WebSocketCompression?
            if let fields = item["offer"] as? [String: Any] {
                offer = WebSocketCompression(
                    clientMaxWindowBits: fields["clientMaxWindowBits"] as? Int, serverMaxWindowBits: fields["serverMaxWindowBits"] as? Int,
                    clientNoContextTakeover: fields["clientNoContextTakeover"] as? Bool ?? false,
                    serverNoContextTakeover: fields["serverNoContextTakeover"] as? Bool ?? false
                )
            }
            return CaseInfo(id: id, offer: offer)
        }
    }

    /// The echo client under test: every message is sent back as it came; a failure ends it.
    static func echo(_ manager: SessionManager, _ url: URL, offer: WebSocketCompression?) async {
        guard let socket = try? await manager.webSocket(to: url, options: WebSocketOptions(compression: offer, closeTimeout: .seconds(15))) else { return }
        do {
            for try await message in socket.messages {
                try? await socket.send(message)
            }
        } catch {}
    }

    @Test func autobahnClientCases() async throws {
        let server = try await startWebSocketServer { try WebSocketTestServer(script: WebSocketFuzzingServer.script) }
        defer { server.stop() }
        let manager = SessionManager(transport: .curl)
        let results: [String: (behavior: String, reason: String)] = try await withDeadline(300) {
            var cases = try Self.parseCases(try await Self.control(manager, server.url("/getCases")))
            if let only = ProcessInfo.processInfo.environment["ASYNCNETWORKING_AUTOBAHN_CASES"] {
                let prefixes = only.split(separator: ",").map(String.init)
                cases = cases.filter { info in prefixes.contains { info.id == $0 || info.id.hasPrefix($0 + ".") } }
            }
            for info in cases {
                await Self.echo(manager, server.url("/runCase?case=\(info.id)"), offer: info.offer)
            }
            let text = try await Self.control(manager, server.url("/getResults"))
            guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String: String]] else { throw TLSTestError("bad results") }
            var results: [String: (behavior: String, reason: String)] = [:]
            for (id, verdict) in object { results[id] = (verdict["behavior"] ?? "?", verdict["reason"] ?? "") }
            #expect(results.count == cases.count, "every case that ran has a verdict")
            return results
        }
        var lines = ["Autobahn-style client conformance over curl (\(results.count) cases)", "category | OK | NON-STRICT | FAILED"]
        for (prefix, name) in Self.categories {
            let verdicts = results.filter { $0.key.split(separator: ".").first.map(String.init) == prefix }.map(\.value.behavior)
            guard !verdicts.isEmpty else { continue }
            let ok = verdicts.count { $0 == "OK" }, nonStrict = verdicts.count { $0 == "NON-STRICT" }
            lines.append("\(name) | \(ok) | \(nonStrict) | \(verdicts.count - ok - nonStrict)")
        }
        let notable = results.filter { $0.value.behavior != "OK" }.sorted { $0.key.compare($1.key, options: .numeric) == .orderedAscending }
        for (id, verdict) in notable { lines.append("  \(id): \(verdict.behavior) \(verdict.reason)") }
        print(lines.joined(separator: "\n"))
        for (id, verdict) in notable where verdict.behavior != "NON-STRICT" {
            Issue.record("case \(id): \(verdict.behavior) — \(verdict.reason)")
        }
    }
}
